"""The summary table printed at the end of `tcprof run` (and reused by the Markdown report)."""

from __future__ import annotations

from typing import Any


def _f(value: float | None, fmt: str, none: str = "-") -> str:
    return none if value is None else format(value, fmt)


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def fmt_speedup(row: dict[str, Any]) -> str:
    if row.get("speedup") is None:
        return "-"
    ci = row.get("speedup_ci")
    text = f"{row['speedup']:.2f}x"
    if ci:
        text += f" [{ci[0]:.2f}-{ci[1]:.2f}]"
    return text


def fmt_accuracy(row: dict[str, Any]) -> str:
    acc = row.get("accuracy")
    return "-" if not acc else acc["status"]


def fmt_break_even(row: dict[str, Any], is_baseline: bool) -> str:
    if is_baseline or row.get("compile_s") is None:
        return "-"
    if row.get("break_even_steps") is None:
        return "never"
    return f"{row['break_even_steps']:.0f}"


# Summary columns that hold numbers: reports right-align them.
NUMERIC_COLUMNS = frozenset(
    {
        "bs",
        "median ms",
        "p90 ms",
        "samples/s",
        "compile s",
        "break-even",
        "peak MB",
        "mem ratio",
        "recompiles",
        "breaks",
    }
)


def table_rows(session_dict: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    header = [
        "arm",
        "bs",
        "status",
        "median ms",
        "p90 ms",
        "samples/s",
        "speedup [95% CI]",
        "compile s",
        "break-even",
        "peak MB",
        "mem ratio",
        "accuracy",
        "recompiles",
        "breaks",
    ]
    rows = []
    for arm_index, arm in enumerate(session_dict["arms"]):
        for r in arm["results"]:
            peak = r.get("peak_cuda_mb") or r.get("peak_rss_mb")
            status = r["status"]
            if r.get("fell_back"):
                status += " (fell back to eager)"
            elif r.get("compiled_while_measuring"):
                status += " (recompiled while measuring)"
            rows.append(
                [
                    arm["name"],
                    str(r["batch_size"]),
                    status,
                    fmt_ms(r.get("median_ms")),
                    fmt_ms(r.get("p90_ms")),
                    _f(r.get("samples_per_s"), ",.0f"),
                    fmt_speedup(r) if arm_index else "baseline",
                    _f(r.get("compile_s"), ".2f"),
                    fmt_break_even(r, arm_index == 0),
                    _f(peak, ".0f"),
                    _f(r.get("memory_ratio"), ".2f"),
                    fmt_accuracy(r) if arm_index else "-",
                    str(r.get("recompiles") or 0),
                    str(r.get("graph_breaks") or 0),
                ]
            )
    return header, rows


def render_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) for r in rows]
    return "\n".join(out)


def render_summary(session_dict: dict[str, Any]) -> str:
    header, rows = table_rows(session_dict)
    parts = [render_table(header, rows)]
    for arm in session_dict["arms"]:
        if arm.get("error"):
            parts.append(
                f"\n{arm['name']}: error ({arm['error']['kind']}): {arm['error']['message']}"
            )
    insight = render_insight(session_dict)
    if insight:
        parts.append(insight)
    env = session_dict.get("environment") or {}
    if env:
        parts.append(
            f"\ntorch {env.get('torch')} · python {env.get('python')} · {env.get('device')} ({env.get('device_name')})"
        )
    acc = [
        r["accuracy"] for a in session_dict["arms"][1:] for r in a["results"] if r.get("accuracy")
    ]
    if acc:
        parts.append(
            f"accuracy: first-step loss and gradient norm against {session_dict['baseline']}, "
            f"|a-b| <= {acc[0]['atol']:g} + {acc[0]['rtol']:g}*|b|"
        )
    return "\n".join(parts)


def render_insight(session_dict: dict[str, Any]) -> str:
    lines: list[str] = []
    compiled = [a for a in session_dict["arms"] if a.get("backend") != "eager" and a.get("results")]
    if compiled:
        lines.append("\nwhat TorchDynamo did per batch size:")
        width = max(len(a["name"]) for a in compiled)
        for arm in compiled:
            cells = [
                f"bs {r['batch_size']} {(r.get('compile_status') or r['status']).replace('_', ' ')}"
                for r in arm["results"]
            ]
            lines.append(f"  {arm['name'].ljust(width)}  " + " · ".join(cells))
    for arm in session_dict["arms"]:
        breaks = arm.get("graph_breaks") or []
        recompiles = arm.get("recompiles") or []
        fallbacks = arm.get("fallbacks") or []
        if not (breaks or recompiles or fallbacks):
            continue
        lines.append(f"\n{arm['name']}:")
        for gb in breaks:
            where = f"{gb['file']}:{gb['line']}" if gb.get("file") else "?"
            lines.append(f"  graph break x{gb['count']} at {where}: {gb['reason']}")
        for rc in recompiles:
            lines.append(
                f"  recompile at bs={rc['batch_size']} ({rc.get('frame')}, {_f(rc.get('seconds'), '.2f')} s): {rc['reason']}"
            )
        for fb in fallbacks:
            lines.append(
                f"  recompile limit hit in {fb.get('frame')}: runs eagerly from then on (timings not compiled)"
            )
    return "\n".join(lines)
