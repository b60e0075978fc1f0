"""The Compile insight tab's tables: how each is made, and the cells of each row.

Kept apart from insight_view.py, which arranges them and follows the user's selection. Every
cell is (text, tooltip); a table with no rows gives way to a sentence saying there is nothing
(`TableOrNote`), so an empty table is never mistaken for one still loading.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from tcprof.app.common.theme import error_colour, is_dark
from tcprof.profiler.analysis.user_words import plain_reason
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.compile_terms import (
    BACKWARD_PART,
    COMPILE_COST,
    OTHER_EVENTS_HELP,
    OTHER_HELP,
    compile_parts,
    frame_label,
    frame_text,
    resume_explanation,
    split_problem,
)
from tcprof.profiler.protocol.event_text import FELL_BACK
from tcprof.profiler.report.sections.table import fmt_break_even

STATUS_TEXT = {
    "eager": "eager (not compiled)",
    "compiled": "compiled",
    "recompiled": "recompiled",
    "reused": "reused a graph",
    "fell_back": FELL_BACK,
    "not_run": "-",
}
Cell = tuple[Any, "str | None"]  # a table cell's text and its tooltip
# column -> the part of compile_parts it shows (short headers: the table is wide)
PART_COLUMNS = {
    "tracing s": "TorchDynamo tracing",
    "AOT + backend s": "AOTAutograd and backend",
    "lowering s": "Inductor lowering",
    "code gen s": "Inductor code generation",
    "backward s": BACKWARD_PART,
    "other s": "other",
}
TIMES_HEADER = [
    "bs",
    "status",
    "first step s",
    "cold s",
    "portable s",
    "warm s",
    *PART_COLUMNS,
    "FX cache cold / warm",
    "break-even cold / warm",
]
TIMES_HELP = (
    f"cold s is the {COMPILE_COST} quoted in Summary and the reports: the time the process\n"
    "spent compiling by torch's compile events, wherever they ran (before training, in a step,\n"
    "in an evaluation), with an empty cache; the list below gives each compile. Its parts add\n"
    "up to it: torch's nested compile timers, each less the one inside it (first round), and\n"
    f"other = {OTHER_EVENTS_HELP}.\n"
    f"(Older sessions: the first step's excess over eager's, and other = {OTHER_HELP}.)\n"
    "portable = a fresh folder loaded with the cold round's torch.compiler.save_cache_artifacts(),\n"
    "warm = the cache the cold round left. FX cache = Inductor's FX-graph cache hits/misses;\n"
    "break-even = training steps that repay the compile. Hover a '-' for why it is missing."
)


def set_header_tips(table: QTableWidget, tips: dict[str, str]) -> None:
    for c in range(table.columnCount()):
        header = table.horizontalHeaderItem(c)
        if header is not None and header.text() in tips:
            header.setToolTip(tips[header.text()])


PART_TIPS = {
    "cold s": f"the {COMPILE_COST} (as in Summary): the sum of the parts to its right",
    "tracing s": "TorchDynamo tracing: capturing the Python code into FX graphs",
    "AOT + backend s": "AOTAutograd and the backend outside Inductor: the backward traced, "
    "decompositions, partitioning",
    "lowering s": "Inductor lowering and scheduling, outside code generation",
    "code gen s": "Inductor code generation: writing and compiling the kernels",
    "other s": f"other: {OTHER_EVENTS_HELP}",
}


def status_colour(status: str) -> QColor | None:
    dark = is_dark()
    return {
        "compiled": QColor("#2e7d32" if not dark else "#81c784"),
        "reused": QColor("#1565c0" if not dark else "#64b5f6"),
        "recompiled": QColor("#e65100" if not dark else "#ffb74d"),
        "fell_back": QColor(error_colour()),
        "error": QColor(error_colour()),
    }.get(status)


def make_table(headers: list[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setStretchLastSection(True)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return t


class TableOrNote(QStackedWidget):
    """A table, or in its place a sentence saying that there is nothing to list."""

    def __init__(self, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.note.setMargin(8)
        self.addWidget(content)
        self.addWidget(self.note)

    def show_content(self, has_rows: bool, empty_text: str) -> None:
        self.note.setText(empty_text)
        self.setCurrentIndex(0 if has_rows else 1)

    def showing_note(self) -> bool:
        return self.currentIndex() == 1


def item(text: Any, tooltip: str | None = None, colour: QColor | None = None) -> QTableWidgetItem:
    out = QTableWidgetItem("-" if text is None else str(text))
    if tooltip:
        out.setToolTip(tooltip)
    if colour is not None:
        out.setForeground(colour)
    return out


def fill(table: QTableWidget, rows: list[list[Cell]]) -> None:
    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, (text, tip) in enumerate(cells):
            table.setItem(r, c, item(text, tip))
    table.resizeColumnsToContents()


def _secs(value: float | None) -> str:
    return units.seconds(value, unit=False)  # the column's header says s


def _where(entry: dict[str, Any]) -> str:
    return f"{Path(entry['file']).name}:{entry['line']}" if entry.get("file") else "?"


def matrix_item(arm: dict[str, Any], row: dict[str, Any] | None, bs: int) -> QTableWidgetItem:
    """What Dynamo did for one arm at one batch size; the tooltip gives the recompile reasons
    or the error."""
    if row is None:
        return item("error" if arm.get("error") else "-")
    status = "error" if row["status"] in ("error", "oom") else row.get("compile_status") or "-"
    reasons = [
        plain_reason(rc) or "?" for rc in arm.get("recompiles", []) if rc.get("batch_size") == bs
    ]
    tip = "\n".join(reasons) if reasons else None
    if status == "error" and row.get("error"):
        tip = row["error"].get("message")
    return item(STATUS_TEXT.get(status, status), tip, status_colour(status))


def advice_cells(advice: dict[str, Any]) -> list[Cell]:
    evidence = advice.get("evidence") or {}
    where = ", ".join(str(w) for w in evidence.get("where") or [])
    return [
        (advice.get("message"), where or None),
        (advice.get("fix"), None),
        (advice.get("apply") or "-", None),
    ]


def graph_break_cells(gb: dict[str, Any]) -> list[Cell]:
    """count, where (the full path as tooltip), batch sizes, reason (PyTorch's explanation)."""
    return [
        (gb.get("count"), None),
        (_where(gb), gb.get("file")),
        (", ".join(map(str, gb.get("batch_sizes", []))), None),
        (gb.get("reason"), gb.get("explanation")),
    ]


def recompile_cells(rc: dict[str, Any]) -> list[Cell]:
    """bs, step, frame (a resume function explained), where, seconds, the guard that failed."""
    frame = rc.get("frame")
    return [
        (rc.get("batch_size"), None),
        (rc.get("step"), None),
        (frame_label(frame), frame_text(frame) if resume_explanation(frame) else None),
        (_where(rc), None),
        (_secs(rc.get("seconds")), None),
        (
            plain_reason(rc),
            f"torch's words: {rc.get('reason')}",
        ),
    ]


def compile_time_cells(row: dict[str, Any]) -> list[Cell]:
    """One batch size's compile times; the parts add up to cold s; a missing figure says why."""
    missing = row.get("compile_missing") or {}
    first_ms = row.get("first_step_ms")
    parts = {name: (seconds, help_text) for name, seconds, help_text in compile_parts(row)}
    problem = split_problem(row)
    part_cells: list[Cell] = []
    for part in PART_COLUMNS.values():
        seconds, help_text = parts.get(part, (None, None))
        tip = f"{part}: {help_text}" if help_text else problem
        part_cells.append((_secs(seconds), tip))
    return [
        (row["batch_size"], None),
        (STATUS_TEXT.get(row.get("compile_status") or "", row.get("status")), None),
        (_secs(first_ms / 1000 if first_ms is not None else None), None),
        (_secs(row.get("compile_cold_s", row.get("compile_s"))), missing.get("cold")),
        (_secs(row.get("compile_portable_s")), missing.get("portable")),
        (_secs(row.get("compile_warm_s")), missing.get("warm")),
        *part_cells,
        (_cache_text(row), None),
        (fmt_break_even(row, is_baseline=False), None),
    ]


def _cache_text(row: dict[str, Any]) -> str:
    """'0/2 · 2/0': FX graph cache hits/misses of the cold and the warm compile."""
    cache = row.get("compile_cache")
    if not cache:
        return (row.get("compile_breakdown") or {}).get("fx_cache") or "-"
    parts = [
        f"{cache[k]['fx_hits']}/{cache[k]['fx_misses']}" for k in ("cold", "warm") if k in cache
    ]
    return " · ".join(parts) or "-"
