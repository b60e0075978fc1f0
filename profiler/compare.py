"""Compare two saved sessions (say, before and after a code change), arm by arm and batch size
by batch size: the change in median step time and in peak memory, with its direction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from profiler.session_files import read_session
from profiler.summary import fmt_mb, fmt_ms, render_table, training_mb

NOISE_FRACTION = 0.02  # changes smaller than 2% of the median are called unchanged


def _direction(
    before: float | None, after: float | None, spread: float, lower_is_better: bool = True
) -> str:
    if before is None or after is None:
        return "n/a"
    delta = after - before
    if abs(delta) <= max(spread, NOISE_FRACTION * abs(before)):
        return "unchanged"
    better = delta < 0 if lower_is_better else delta > 0
    return "better" if better else "worse"


def method_note(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    """Sessions measured by different methods (schema versions) compare step times only."""
    versions = {before.get("schema_version") or 1, after.get("schema_version") or 1}
    if len(versions) == 1:
        return None
    return (
        "the sessions were measured by different methods (session schema "
        f"{before.get('schema_version') or 1} and {after.get('schema_version') or 1}): memory is "
        "not compared (peak RSS then, training memory now), and speedup intervals differ in "
        "meaning"
    )


def compare_sessions(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    same_method = method_note(before, after) is None
    after_arms = {a["name"]: a for a in after.get("arms", [])}
    for arm in before.get("arms", []):
        other = after_arms.get(arm["name"])
        if other is None:
            continue
        other_rows = {r["batch_size"]: r for r in other["results"]}
        for r in arm["results"]:
            o = other_rows.get(r["batch_size"])
            if o is None:
                continue
            b_ms, a_ms = r.get("median_ms"), o.get("median_ms")
            spread = 0.0
            if None not in (r.get("iqr_ms"), o.get("iqr_ms")):
                spread = 0.5 * (r["iqr_ms"] + o["iqr_ms"])
            b_mem = training_mb(r) if same_method else None
            a_mem = training_mb(o) if same_method else None
            rows.append(
                {
                    "arm": arm["name"],
                    "batch_size": r["batch_size"],
                    "median_ms_before": b_ms,
                    "median_ms_after": a_ms,
                    "time_change": (a_ms / b_ms - 1) if b_ms and a_ms else None,
                    "time_direction": _direction(b_ms, a_ms, spread),
                    "peak_mb_before": b_mem,
                    "peak_mb_after": a_mem,
                    "memory_change": (a_mem / b_mem - 1) if b_mem and a_mem else None,
                    "memory_direction": _direction(b_mem, a_mem, 0.0),
                    "speedup_before": r.get("speedup"),
                    "speedup_after": o.get("speedup"),
                }
            )
    return rows


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f}%"


def render_comparison(rows: list[dict[str, Any]]) -> str:
    header = [
        "arm",
        "bs",
        "median before",
        "after",
        "change",
        "",
        "train MB before",
        "after",
        "change",
        "",
    ]
    body = [
        [
            r["arm"],
            str(r["batch_size"]),
            fmt_ms(r["median_ms_before"]),
            fmt_ms(r["median_ms_after"]),
            _pct(r["time_change"]),
            r["time_direction"],
            fmt_mb(r["peak_mb_before"]),
            fmt_mb(r["peak_mb_after"]),
            _pct(r["memory_change"]),
            r["memory_direction"],
        ]
        for r in rows
    ]
    if not body:
        return "the sessions share no arm and batch size to compare"
    return render_table(header, body)


def compare_saved(before: str | Path, after: str | Path) -> str:
    """The comparison of two saved sessions (folders, session.json or events.jsonl files) as
    text: the table, then a note when they were measured by different methods.

    Raises SessionLoadError when either cannot be read."""
    old, new = read_session(before), read_session(after)
    text = render_comparison(compare_sessions(old, new))
    note = method_note(old, new)
    return f"{text}\n\nnote: {note}" if note else text
