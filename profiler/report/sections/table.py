"""The summary table (arm x batch size) as text cells, in the order every view shows it, and
as plain text: shared by the terminal, the Markdown and HTML reports, the trackers and the
window. Its cells are `cells.py`'s, its columns `columns.py`'s."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.event_text import FELL_BACK
from tcprof.profiler.report.sections import script as script_section
from tcprof.profiler.report.sections.cells import (
    contention_text,
    failed_status,
    fmt_accuracy,
    fmt_break_even,
    fmt_compile,
    fmt_speedup,
    fmt_verdict,
    training_mb,
)
from tcprof.profiler.report.sections.columns import speedup_header


def batch_size_order(model: SessionModel) -> list[int]:
    """The batch sizes in the order the run was asked for, then any others measured."""
    asked = list(model.batch_sizes)
    seen = [r.batch_size for r in model.rows]
    order = [b for b in asked if b in seen]
    return order + sorted({b for b in seen if b not in order})


def summary_rows(model: SessionModel) -> list[tuple[int, Arm, Row]]:
    """(arm index, arm, row) for every Summary row: grouped by batch size, the arms side by
    side in their order within each size (the table, the app and the reports share it)."""
    arms = list(enumerate(model.arms))
    return [
        (i, arm, row)
        for bs in batch_size_order(model)
        for i, arm in arms
        for row in arm.rows
        if row.batch_size == bs
    ]


def summary_results(
    model: SessionModel,
) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
    """summary_rows as session.json holds them (a copy), for the readers still on dicts."""
    return [(i, thaw(arm.data), thaw(row.data)) for i, arm, row in summary_rows(model)]


def _script(model: SessionModel) -> ScriptSource | None:
    """The script's options (None: a model file's session)."""
    return script_section.script_of(model)


def table_rows(model: SessionModel) -> tuple[list[str], list[list[str]]]:
    header = [
        "arm",
        "bs",
        "status",
        "median ms",
        "p90 ms",
        "samples/s",
        speedup_header(model),
        "verdict",
        "compile s cold/warm",
        "break-even cold/warm",
        "tensor peak",
        "memory",
        "accuracy",
        "recompiles",
        "breaks",
    ]
    script = _script(model)
    unit = script_section.work_unit(model)
    if script is not None:  # its own unit; no batch size of tcprof's unless it sweeps one
        header[5] = f"{unit}/s"
        if not script.sweep:
            header[1] = "per step"
    rows = []
    for arm_index, arm, r in summary_rows(model):
        status = failed_status(r)  # "stopped at 12/50": its figures are marked partial
        status += contention_text(r)
        if r.fell_back:
            status += f" ({FELL_BACK})"
        elif r.compiled_while_measuring:
            status += " (recompiled while measuring)"
        change = r.memory.change
        rows.append(
            [
                arm.name,
                _phase_cell(script, r, unit),
                status,
                _partial(units.ms(r.median_ms, unit=False), r),
                units.ms(r.p90_ms, unit=False),
                _throughput_cell(script, r),
                _partial(fmt_speedup(r), r) if arm_index else "baseline",
                _partial(fmt_verdict(r), r) if arm_index else "-",
                fmt_compile(r),
                fmt_break_even(r, arm_index == 0),
                units.megabytes(training_mb(r)),
                ("-" if change is None else units.change(change)) if arm_index else "-",
                fmt_accuracy(r) if arm_index else "-",
                str(r.recompiles),
                str(r.graph_breaks),
            ]
        )
    return header, rows


def _phase_cell(script: ScriptSource | None, row: Row, unit: str) -> str:
    """The batch size; a script's phase value, or without a sweep its work per step."""
    if script is not None and not script.sweep:
        return script_section.work_text(row, unit)
    return str(row.batch_size)


def _throughput_cell(script: ScriptSource | None, row: Row) -> str:
    if script is None:
        return units.count(row.samples_per_s)
    return units.rate(row.script.work_per_s if row.script else None)


def _partial(text: str, row: Row) -> str:
    """'12.30' -> '12.30 (partial)' for a partial row's figures; '-' stays '-'."""
    return f"{text} (partial)" if row.partial and text != "-" else text


def render_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) for r in rows]
    return "\n".join(out)
