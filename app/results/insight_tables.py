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
from tcprof.profiler.model.arm import Advice, Arm, GraphBreak, Recompile
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.row import Row
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
from tcprof.profiler.report.sections.cells import fmt_break_even

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


def _where(entry: GraphBreak | Recompile) -> str:
    return f"{Path(entry.file).name}:{entry.line}" if entry.file else "?"


def saved_row(row: Row) -> dict[str, Any]:
    """The row as session.json holds it: what protocol/compile_terms.py's helpers (the compile
    cost's parts) read, the one place the tab hands them a dict."""
    return dict(thaw(row.data))


def matrix_item(arm: Arm, row: Row | None, bs: int) -> QTableWidgetItem:
    """What Dynamo did for one arm at one batch size; the tooltip gives the recompile reasons
    or the error."""
    if row is None:
        return item("error" if arm.error else "-")
    status = "error" if row.status in ("error", "oom") else row.compile_status or "-"
    reasons = [plain_reason(rc) or "?" for rc in arm.recompiles if rc.batch_size == bs]
    tip = "\n".join(reasons) if reasons else None
    if status == "error" and row.error:
        tip = row.error.message
    return item(STATUS_TEXT.get(status, status), tip, status_colour(status))


def advice_cells(advice: Advice) -> list[Cell]:
    where = ", ".join(advice.where)
    return [
        (advice.message, where or None),
        (advice.fix, None),
        (advice.apply or "-", None),
    ]


def graph_break_cells(gb: GraphBreak) -> list[Cell]:
    """count, where (the full path as tooltip), batch sizes, reason (PyTorch's explanation)."""
    return [
        (gb.count, None),
        (_where(gb), gb.file),
        (", ".join(map(str, gb.batch_sizes)), None),
        (gb.reason, gb.explanation),
    ]


def recompile_cells(rc: Recompile) -> list[Cell]:
    """bs, step, frame (a resume function explained), where, seconds, the guard that failed."""
    frame = rc.frame
    return [
        (rc.batch_size, None),
        (rc.step, None),
        (frame_label(frame), frame_text(frame) if resume_explanation(frame) else None),
        (_where(rc), None),
        (_secs(rc.seconds), None),
        (plain_reason(rc), f"torch's words: {rc.reason}"),
    ]


def compile_time_cells(row: Row) -> list[Cell]:
    """One batch size's compile times; the parts add up to cold s; a missing figure says why."""
    plain = saved_row(row)
    cost = row.compile
    missing = cost.missing if cost else {}
    cold, portable, warm = (missing.get(k) for k in ("cold", "portable", "warm"))
    first_ms = row.first_step_ms
    parts = {name: (seconds, help_text) for name, seconds, help_text in compile_parts(plain)}
    problem = split_problem(plain)
    part_cells: list[Cell] = []
    for part in PART_COLUMNS.values():
        seconds, help_text = parts.get(part, (None, None))
        tip = f"{part}: {help_text}" if help_text else problem
        part_cells.append((_secs(seconds), tip))
    cold_s = None if cost is None else cost.cold_s if cost.cold_s is not None else cost.first_s
    return [
        (row.batch_size, None),
        (STATUS_TEXT.get(row.compile_status or "", row.status), None),
        (_secs(first_ms / 1000 if first_ms is not None else None), None),
        (_secs(cold_s), cold),
        (_secs(cost.portable_s if cost else None), portable),
        (_secs(cost.warm_s if cost else None), warm),
        *part_cells,
        (_cache_text(row), None),
        (fmt_break_even(row, is_baseline=False), None),
    ]


def _cache_text(row: Row) -> str:
    """'0/2 · 2/0': FX graph cache hits/misses of the cold and the warm compile."""
    cache = row.data.get("compile_cache")  # kept raw (model/raw.py)
    if not cache:
        breakdown = row.compile.breakdown if row.compile else None
        return (breakdown.fx_cache if breakdown else None) or "-"
    parts = [
        f"{cache[k]['fx_hits']}/{cache[k]['fx_misses']}" for k in ("cold", "warm") if k in cache
    ]
    return " · ".join(parts) or "-"
