"""Advice that fixes recompiles: the guard failures of an arm grouped into causes and fixes.

TorchDynamo says why it recompiled ("tensor 'x' size mismatch at index 0. expected 8, actual
16", "self.step == 1"), once per recompile and frame. A user needs the cause behind a dozen such
lines and the one change that removes them. Each piece of advice is
`{kind, message, fix, evidence, apply}`; `apply` is an arm option tcprof can add itself to verify
the fix (`mark_dynamic=0`), or None when the fix is the user's to make.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

SIZE_GUARD = re.compile(
    r"tensor '(?P<tensor>[^']+)' size mismatch at index (?P<dim>\d+)\. "
    r"expected (?P<expected>\d+), actual (?P<actual>\d+)"
)
VALUE_GUARD = re.compile(
    r"^(?:\d+/\d+: )?(?P<name>[\w\[\]'\.]+) == (?P<value>-?[\d.e+-]+|True|False)\b"
)
TORCH_HINT = re.compile(r"\(HINT: (?P<hint>.+?)\)\s*(?:\n|$)", re.S)
LIBRARY_PATH = re.compile(r"[/\\](site|dist)-packages[/\\](?P<lib>[^/\\]+)")
EXAMPLES = 3


def _first_line(reason: Any) -> str:
    text = str(reason or "").strip().splitlines()
    return re.sub(r"^\d+/\d+: ", "", text[0]).split("  #")[0].strip() if text else ""


def _where(item: dict[str, Any]) -> str:
    file, line = item.get("file"), item.get("line")
    return f"{file}:{line}" if file else str(item.get("frame") or "?")


def _size_advice(
    matches: list[tuple[dict[str, Any], re.Match[str]]], batch_dim: bool
) -> dict[str, Any]:
    tensors = sorted({m["tensor"] for _, m in matches})
    sizes: list[int] = []
    for _, m in matches:
        for size in (int(m["expected"]), int(m["actual"])):
            if size not in sizes:
                sizes.append(size)
    dims = sorted({int(m["dim"]) for _, m in matches})
    what = "the batch dimension (0)" if batch_dim else f"dimension {', '.join(map(str, dims))}"
    chain = " → ".join(map(str, sizes))
    return {
        "kind": "batch_size_guard" if batch_dim else "shape_guard",
        "message": f"{len(matches)} recompile(s): {what} of {', '.join(tensors)} changed size "
        f"({chain}), and each new size compiled again",
        "fix": (
            "compile with dynamic=True, or mark the dimension dynamic before the call: "
            f"torch._dynamo.mark_dynamic(x, {dims[0]})"
        ),
        "evidence": {
            "count": len(matches),
            "sizes": sizes,
            "examples": [_first_line(rc.get("reason")) for rc, _ in matches[:EXAMPLES]],
            "where": sorted({_where(rc) for rc, _ in matches}),
        },
        "apply": "mark_dynamic=0" if batch_dim else None,
    }


def _value_advice(name: str, items: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
    values = list(dict.fromkeys(v for _, v in items))
    hint = next(
        (m["hint"] for rc, _ in items if (m := TORCH_HINT.search(str(rc.get("reason"))))), None
    )
    fix = (
        f"make {name} a tensor (torch.tensor(value), updated in place with .fill_()) so its "
        "value is data, not part of the compiled code"
    )
    if hint:
        fix += f"; PyTorch's hint: {hint.strip()}"
    return {
        "kind": "python_number",
        "message": f"{len(items)} recompile(s): the Python number {name} changed value "
        f"({', '.join(values[:6])}{', …' if len(values) > 6 else ''}), and TorchDynamo "
        "compiled its value into the graph",
        "fix": fix,
        "evidence": {
            "count": len(items),
            "values": values,
            "examples": [_first_line(rc.get("reason")) for rc, _ in items[:EXAMPLES]],
            "where": sorted({_where(rc) for rc, _ in items}),
        },
        "apply": None,
    }


def recompile_advice(
    recompiles: list[dict[str, Any]], batch_sizes: list[int]
) -> list[dict[str, Any]]:
    """Group recompiles by cause: batch-size guards, other shape guards, Python numbers, rest."""
    batch: list[tuple[dict[str, Any], re.Match[str]]] = []
    shape: list[tuple[dict[str, Any], re.Match[str]]] = []
    numbers: dict[str, list[tuple[dict[str, Any], str]]] = defaultdict(list)
    other: dict[str, list[dict[str, Any]]] = defaultdict(list)
    sizes = set(batch_sizes)
    for rc in recompiles:
        reason = str(rc.get("reason") or "")
        size = SIZE_GUARD.search(reason)
        value = VALUE_GUARD.search(reason.strip())
        if size:
            is_batch = size["dim"] == "0" and (
                not sizes or {int(size["expected"]), int(size["actual"])} <= sizes
            )
            (batch if is_batch else shape).append((rc, size))
        elif value:
            numbers[value["name"]].append((rc, value["value"]))
        else:
            other[_first_line(reason) or "no reason recorded"].append(rc)
    out = []
    if batch:
        out.append(_size_advice(batch, batch_dim=True))
    if shape:
        out.append(_size_advice(shape, batch_dim=False))
    out += [_value_advice(name, items) for name, items in numbers.items()]
    for reason, items in other.items():
        out.append(
            {
                "kind": "other_guard",
                "message": f"{len(items)} recompile(s) because a guard failed: {reason}",
                "fix": "run with --log guards,recompiles to see the guard; whatever it checks "
                "changed between calls",
                "evidence": {"count": len(items), "where": sorted({_where(rc) for rc in items})},
                "apply": None,
            }
        )
    return out


def fallback_advice(fallbacks: list[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    """The recompile limit reached: which frames and batch sizes ran eagerly from then on."""
    if not fallbacks:
        return []
    frames = sorted({str(f.get("frame")) for f in fallbacks})
    sizes = sorted({f["batch_size"] for f in fallbacks if isinstance(f.get("batch_size"), int)})
    which = (
        f"torch._dynamo.config.recompile_limit ({limit})"
        if limit
        else ("torch._dynamo.config.recompile_limit")
    )
    return [
        {
            "kind": "recompile_limit",
            "message": f"the recompile limit was reached in {', '.join(frames)}: "
            + (
                f"batch size(s) {', '.join(map(str, sizes))} ran eagerly"
                if sizes
                else "later calls ran eagerly"
            ),
            "fix": f"remove the cause of the recompiles above; raising {which} only postpones it",
            "evidence": {
                "frames": frames,
                "batch_sizes": sizes,
                "where": sorted({_where(f) for f in fallbacks}),
            },
            "apply": None,
        }
    ]


def cudagraph_advice(skips: list[dict[str, Any]], mode: str | None) -> list[dict[str, Any]]:
    """CUDA graphs the arm's mode asked for and did not get: one piece per reason, so an arm
    that runs without its graphs says so, and where."""
    by_reason: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for skip in skips:
        by_reason[str(skip.get("reason") or "unknown")].append(skip)
    out = []
    for reason, items in by_reason.items():
        sizes = sorted({s["batch_size"] for s in items if isinstance(s.get("batch_size"), int)})
        cpu = "hold no CUDA tensor" in reason
        out.append(
            {
                "kind": "cudagraphs_skipped",
                "message": f"mode={mode or 'reduce-overhead'} ran without CUDA graphs"
                + (f" at batch size(s) {', '.join(map(str, sizes))}" if sizes else "")
                + f": {reason}",
                "fix": (
                    "run on a CUDA device, or compare against mode=default: on this device the "
                    "mode adds nothing but its warm-up"
                    if cpu
                    else "remove the cause at the line named (CUDA graphs need static shapes, no "
                    "CPU tensors, no input mutation outside the graph), or use "
                    "mode=max-autotune-no-cudagraphs"
                ),
                "evidence": {
                    "batch_sizes": sizes,
                    "where": sorted({_where(s) for s in items if s.get("file")}),
                    "skips": sum(int(s.get("count") or 1) for s in items),
                },
                "apply": None,
            }
        )
    return out


def library_break_advice(
    graph_breaks: list[dict[str, Any]], user_file: str | None
) -> list[dict[str, Any]]:
    """Graph breaks inside an installed library, not in the user's code."""
    out = []
    for gb in graph_breaks:
        file = str(gb.get("file") or "")
        lib = LIBRARY_PATH.search(file)
        if not lib or (user_file and file == user_file):
            continue
        hints = [str(h) for h in gb.get("hints") or []]
        out.append(
            {
                "kind": "library_graph_break",
                "message": f"graph break inside {lib['lib']} ({file}:{gb.get('line')}): {gb.get('reason')}",
                "fix": "; ".join(hints)
                if hints
                else f"not in your code: check whether a newer {lib['lib']} or torch release "
                "compiles it, or compile around it (regional compilation of your own blocks)",
                "evidence": {"count": gb.get("count", 1), "where": [f"{file}:{gb.get('line')}"]},
                "apply": None,
            }
        )
    return out


def arm_advice(
    arm: dict[str, Any], batch_sizes: list[int], user_file: str | None, limit: int | None = None
) -> list[dict[str, Any]]:
    """All advice for one arm of a session dict (its recompiles, fallbacks and graph breaks)."""
    if arm.get("backend") == "eager":
        return []
    return (
        recompile_advice(arm.get("recompiles") or [], batch_sizes)
        + fallback_advice(arm.get("fallbacks") or [], limit)
        + library_break_advice(arm.get("graph_breaks") or [], user_file)
        + cudagraph_advice(arm.get("cudagraph_skips") or [], (arm.get("options") or {}).get("mode"))
    )
