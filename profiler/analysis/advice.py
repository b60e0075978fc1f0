"""Advice that fixes recompiles: the guard failures of an arm grouped into causes and fixes.

TorchDynamo says why it recompiled ("tensor 'x' size mismatch at index 0. expected 8, actual
16", "self.step == 1"), once per recompile and frame. A user needs the cause behind a dozen such
lines and the one change that removes them. Each piece of advice is
`{kind, message, fix, evidence, apply}`; `apply` is an arm option tcprof can add itself to verify
the fix (`mark_dynamic=0`), or None when the fix is the user's to make.

Advice is in the user's words: TorchDynamo's internal names (`___stack0`, `L['x']`,
`___check_obj_id`) become the user's expressions (`x.sum().item()`, `x`; see user_words), and a
changed size is told as the arm's `dynamic=` makes it happen: False compiles every new size,
None (torch's default) compiles the second size once more with the dimension dynamic.

It reads an arm's typed records (model/arm.py: `Recompile`, `Fallback`, `GraphBreak`,
`CudagraphSkip`; the rows' `Compile`s); the grad-mode advice is grad_mode.py's. Each piece is
returned as session.json saves it: the session's writer (session/document.py) writes it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from tcprof.profiler.analysis.advice_item import SavedAdvice
from tcprof.profiler.analysis.grad_mode import GRAD_MODE, grad_mode_advice, where
from tcprof.profiler.analysis.user_words import (
    BREAKING_METHODS,
    STACK,
    plain_guard,
    plain_source,
    resume_line,
    stack_value,
)
from tcprof.profiler.model.arm import Arm, Fallback, GraphBreak, Recompile
from tcprof.profiler.model.compiles import Compile
from tcprof.profiler.model.cudagraphs import CudagraphSkip
from tcprof.profiler.protocol.compile_terms import frame_label

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


def _first_line(reason: str | None) -> str:
    text = str(reason or "").strip().splitlines()
    return re.sub(r"^\d+/\d+: ", "", text[0]).split("  #")[0].strip() if text else ""


def _example(rc: Recompile) -> str:
    """A recompile's failed guard, in the user's words (tcprof.profiler.analysis.user_words)."""
    return plain_guard(_first_line(rc.reason), rc)


def _per_frame(recompiles: Sequence[Recompile]) -> int:
    """The most recompiles any one frame (forward, a resume function) had."""
    frames = Counter((rc.frame, rc.file, rc.line) for rc in recompiles)
    return max(frames.values(), default=0)


def _size_words(
    dynamic: bool | None, per_frame: int, sizes: list[int], dim: int
) -> tuple[str, str, bool]:
    """(what happened after the size changed, the fix, whether mark_dynamic would help) under
    the arm's dynamic= option: False compiles each new size; None (torch's default, automatic
    dynamic shapes) compiles the second size once more with the dimension dynamic, and later
    sizes reuse it; True compiles it dynamic from the start, unless something specialized it."""
    mark = f"torch._dynamo.mark_dynamic(x, {dim})"
    special = (
        "sizes 0 and 1 are always compiled apart"
        + (", and this run has size 1" if 1 in sizes else "")
        + "; a size the code uses as a Python number (a condition, a shape computed in Python) "
        "is specialized too"
    )
    if dynamic is False:
        return (
            "and with dynamic=False each new size compiled again",
            "compile with dynamic=True, or mark the dimension dynamic before the call: "
            f"{mark}; or leave dynamic unset (torch's default: the second size compiles once "
            "more with the dimension dynamic, and later sizes reuse it)",
            True,
        )
    if dynamic is True:
        return (
            f"although dynamic=True, so the dimension was specialized ({special})",
            "avoid the specializing size or use, and find it with TORCH_LOGS=+dynamic (the "
            "guard on that size); mark_dynamic would only turn it into an error naming the line",
            False,
        )
    if per_frame <= 1:
        return (
            "and under dynamic=None (torch's default, automatic dynamic shapes) the second size "
            "compiled once more with the dimension dynamic; later sizes reuse that graph",
            "to save that second compile, mark the dimension dynamic before the first call: "
            f"{mark}, or compile with dynamic=True",
            True,
        )
    return (
        "and under dynamic=None (torch's default) the second size made the dimension dynamic, "
        f"yet new sizes compiled again, up to {per_frame} times in one frame ({special})",
        f"mark the dimension dynamic before the first call: {mark} (or compile with "
        "dynamic=True); if sizes still recompile, find what specializes them with "
        "TORCH_LOGS=+dynamic",
        True,
    )


def _size_advice(
    matches: list[tuple[Recompile, re.Match[str]]],
    batch_dim: bool,
    dynamic: bool | None,
    run_sizes: set[int],
) -> SavedAdvice:
    tensors = sorted({plain_source(m.group("tensor")) for _, m in matches})
    sizes: list[int] = []
    for _, m in matches:
        for size in (int(m.group("expected")), int(m.group("actual"))):
            if size not in sizes:
                sizes.append(size)
    dims = sorted({int(m.group("dim")) for _, m in matches})
    what = "the batch dimension (0)" if batch_dim else f"dimension {', '.join(map(str, dims))}"
    chain = " → ".join(map(str, sizes))
    seen = sorted({*sizes, *run_sizes}) if batch_dim else sizes
    per_frame = _per_frame([rc for rc, _ in matches])
    happened, fix, helps = _size_words(dynamic, per_frame, seen, dims[0])
    return {
        "kind": "batch_size_guard" if batch_dim else "shape_guard",
        "message": f"{len(matches)} recompile(s): {what} of {', '.join(tensors)} changed size "
        f"({chain}), {happened}",
        "fix": fix,
        "evidence": {
            "count": len(matches),
            "sizes": sizes,
            "dynamic": dynamic,
            "examples": [_example(rc) for rc, _ in matches[:EXAMPLES]],
            "where": sorted({where(rc) for rc, _ in matches}),
        },
        "apply": "mark_dynamic=0" if batch_dim and helps else None,
    }


def _number_words(name: str, items: list[tuple[Recompile, str]]) -> tuple[str, str]:
    """(the number in the user's words, the fix): a `.item()` result handed on at a graph break
    (TorchDynamo's `___stackN`) by its expression, a Python flag as a flag."""
    values = {v for _, v in items}
    if STACK.fullmatch(name):
        value = stack_value(items[0][0])
        what = f"that {value.text} returns (after the graph break at {value.where})"
        expr = value.expression
        method = next((m for m in BREAKING_METHODS if expr and expr.endswith(f".{m}()")), None)
        if expr and method:
            tensor = expr[: -len(f".{method}()")]
            return what, (
                f"keep it a tensor: use {tensor} in tensor arithmetic instead of calling "
                f".{method}(), or set torch._dynamo.config.capture_scalar_outputs = True so "
                f"TorchDynamo traces .{method}() instead of breaking the graph there"
            )
        return what, (
            "keep it a tensor rather than a Python number, so its value is data, not part of "
            "the compiled code; for .item(), torch._dynamo.config.capture_scalar_outputs = True "
            "traces it instead of breaking the graph"
        )
    words = plain_source(name)
    if values <= {"True", "False"}:
        return words, (
            f"expected if {words} changes on purpose (model.train() and .eval(): one graph per "
            "value, compiled once each); otherwise keep it fixed while the model runs, or make "
            "it a tensor and choose with torch.where"
        )
    return words, (
        f"make {words} a tensor (torch.tensor(value), updated in place with .fill_()) so its "
        "value is data, not part of the compiled code"
    )


def _value_advice(
    name: str, items: list[tuple[Recompile, str]], dynamic: bool | None = None
) -> SavedAdvice:
    values = list(dict.fromkeys(v for _, v in items))
    hint = next(
        (m.group("hint") for rc, _ in items if (m := TORCH_HINT.search(str(rc.reason)))), None
    )
    what, fix = _number_words(name, items)
    if hint:
        fix += f"; PyTorch's hint: {plain_guard(hint.strip(), items[0][0])}"
    flag = set(values) <= {"True", "False"}
    if dynamic is None and not flag and _per_frame([rc for rc, _ in items]) <= 1:
        # automatic dynamic: the value it guarded changed once, and the next compile took the
        # number as an input (seen on torch 2.13 for an .item() result handed on at a break)
        happened = (
            "TorchDynamo compiled its first value into the graph, and under dynamic=None "
            "(torch's default) the second value compiled once more with the number dynamic"
        )
    else:
        happened = "TorchDynamo compiled its value into the graph"
    return {
        "kind": "python_number",
        "message": f"{len(items)} recompile(s): the Python {'flag' if flag else 'number'} "
        f"{what} changed value "
        f"({', '.join(values[:6])}{', …' if len(values) > 6 else ''}), and {happened}",
        "fix": fix,
        "evidence": {
            "count": len(items),
            "values": values,
            "examples": [_example(rc) for rc, _ in items[:EXAMPLES]],
            "where": sorted({where(rc) for rc, _ in items}),
        },
        "apply": None,
    }


def _number_key(name: str, rc: Recompile) -> str:
    """One piece of advice per Python number: a `___stackN` is a different value in each resume
    function, so it is told apart by where the graph broke."""
    if STACK.fullmatch(name):
        return f"{name}@{rc.file}:{resume_line(rc.frame) or rc.line}"
    return name


def recompile_advice(
    recompiles: Sequence[Recompile],
    batch_sizes: Sequence[int],
    dynamic: bool | None = None,
    compiles: Sequence[Sequence[Compile]] | None = None,
) -> list[SavedAdvice]:
    """Group recompiles by cause: batch-size guards, other shape guards, Python numbers, grad
    mode, rest. `dynamic` is the arm's torch.compile(dynamic=...): None is torch's default;
    `compiles` each row's compiles list, where the grad-mode advice finds the other mode's call."""
    batch: list[tuple[Recompile, re.Match[str]]] = []
    shape: list[tuple[Recompile, re.Match[str]]] = []
    numbers: dict[str, list[tuple[Recompile, str]]] = defaultdict(list)
    names: dict[str, str] = {}
    other: dict[str, list[Recompile]] = defaultdict(list)
    grad: list[Recompile] = []
    sizes = set(batch_sizes)
    for rc in recompiles:
        reason = str(rc.reason or "")
        if GRAD_MODE in _first_line(reason):
            grad.append(rc)
            continue
        size = SIZE_GUARD.search(reason)
        value = VALUE_GUARD.search(reason.strip())
        if size:
            changed = {int(size.group("expected")), int(size.group("actual"))}
            is_batch = size.group("dim") == "0" and (not sizes or changed <= sizes)
            (batch if is_batch else shape).append((rc, size))
        elif value:
            key = _number_key(value.group("name"), rc)
            names[key] = value.group("name")
            numbers[key].append((rc, value.group("value")))
        else:
            other[_example(rc) or "no reason recorded"].append(rc)
    out: list[SavedAdvice] = []
    if batch:
        out.append(_size_advice(batch, batch_dim=True, dynamic=dynamic, run_sizes=sizes))
    if shape:
        out.append(_size_advice(shape, batch_dim=False, dynamic=dynamic, run_sizes=sizes))
    out += [_value_advice(names[key], items, dynamic) for key, items in numbers.items()]
    if grad:
        out.append(grad_mode_advice(grad, compiles or []))
    for reason, items in other.items():
        out.append(
            {
                "kind": "other_guard",
                "message": f"{len(items)} recompile(s) because a guard failed: {reason}",
                "fix": "run with --log guards,recompiles to see the guard; whatever it checks "
                "changed between calls",
                "evidence": {"count": len(items), "where": sorted({where(rc) for rc in items})},
                "apply": None,
            }
        )
    return out


def fallback_advice(fallbacks: Sequence[Fallback], limit: int | None) -> list[SavedAdvice]:
    """The recompile limit reached: which frames and batch sizes ran eagerly from then on."""
    if not fallbacks:
        return []
    # a resume function as `forward after line 14`, not torch_dynamo_resume_in_forward_at_14
    frames = sorted({frame_label(f.frame) for f in fallbacks})
    sizes = sorted({f.batch_size for f in fallbacks if f.batch_size is not None})
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
                "where": sorted({where(f) for f in fallbacks}),
            },
            "apply": None,
        }
    ]


def cudagraph_advice(skips: Sequence[CudagraphSkip], mode: str | None) -> list[SavedAdvice]:
    """CUDA graphs the arm's mode asked for and did not get: one piece per reason, so an arm
    that runs without its graphs says so, and where."""
    by_reason: dict[str, list[CudagraphSkip]] = defaultdict(list)
    for skip in skips:
        by_reason[skip.reason or "unknown"].append(skip)
    out: list[SavedAdvice] = []
    for reason, items in by_reason.items():
        sizes = sorted({s.batch_size for s in items if s.batch_size is not None})
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
                    "where": sorted({f"{s.file}:{s.line}" for s in items if s.file}),
                    "skips": sum(s.count or 1 for s in items),
                },
                "apply": None,
            }
        )
    return out


def library_break_advice(
    graph_breaks: Sequence[GraphBreak], user_file: str | None
) -> list[SavedAdvice]:
    """Graph breaks inside an installed library, not in the user's code."""
    out: list[SavedAdvice] = []
    for gb in graph_breaks:
        file = gb.file or ""
        lib = LIBRARY_PATH.search(file)
        if not lib or (user_file and file == user_file):
            continue
        name = lib.group("lib")
        out.append(
            {
                "kind": "library_graph_break",
                "message": f"graph break inside {name} ({file}:{gb.line}): {gb.reason}",
                "fix": "; ".join(gb.hints)
                if gb.hints
                else f"not in your code: check whether a newer {name} or torch release "
                "compiles it, or compile around it (regional compilation of your own blocks)",
                "evidence": {"count": gb.count or 1, "where": [f"{file}:{gb.line}"]},
                "apply": None,
            }
        )
    return out


def arm_advice(
    arm: Arm,
    batch_sizes: Sequence[int],
    user_file: str | None,
    limit: int | None = None,
) -> list[SavedAdvice]:
    """All advice for one arm (its recompiles, fallbacks, graph breaks and skipped CUDA graphs),
    as session.json saves it (the session's writer reads the arm it is building as an `Arm`)."""
    if arm.backend == "eager":
        return []
    return (
        recompile_advice(
            arm.recompiles, batch_sizes, arm.dynamic, [row.compiles for row in arm.rows]
        )
        + fallback_advice(arm.fallbacks, limit)
        + library_break_advice(arm.graph_breaks, user_file)
        + cudagraph_advice(arm.cudagraph_skips, arm.mode)
    )
