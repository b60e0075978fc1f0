"""The "Compile insight" tab: why torch.compile helped or not, beside the numbers.

Everything comes from the session dict (session.json's form): the batch-size matrix of what
TorchDynamo did per arm (compiled, recompiled, reused a graph, fell back to eager), each
distinct graph break with the user's source lines around it, each recompile with the guard
that failed, and the compile-time breakdown with break-even steps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.theme import error_colour, is_dark
from profiler.event_text import FELL_BACK, recompile_limit_hit
from profiler.source_context import source_context  # regular files under 1 MB only
from profiler.summary import fmt_break_even

STATUS_TEXT = {
    "eager": "eager (not compiled)",
    "compiled": "compiled",
    "recompiled": "recompiled",
    "reused": "reused a graph",
    "fell_back": FELL_BACK,
    "not_run": "-",
}
Cell = tuple[Any, "str | None"]  # a table cell's text and its tooltip


def _status_colour(status: str) -> QColor | None:
    dark = is_dark()
    return {
        "compiled": QColor("#2e7d32" if not dark else "#81c784"),
        "reused": QColor("#1565c0" if not dark else "#64b5f6"),
        "recompiled": QColor("#e65100" if not dark else "#ffb74d"),
        "fell_back": QColor(error_colour()),
        "error": QColor(error_colour()),
    }.get(status)


def _table(headers: list[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setStretchLastSection(True)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return t


def _item(text: Any, tooltip: str | None = None, colour: QColor | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem("-" if text is None else str(text))
    if tooltip:
        item.setToolTip(tooltip)
    if colour is not None:
        item.setForeground(colour)
    return item


def _secs(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


class InsightView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: dict[str, Any] = {"arms": []}
        self.matrix = _table(["arm"])
        self.matrix.setToolTip(
            "What TorchDynamo did at each batch size: compiled, recompiled (a guard failed, e.g. a\n"
            "new batch size with dynamic=False), reused an existing graph (dynamic shapes), or fell\n"
            "back to eager after torch._dynamo.config.recompile_limit; fallen-back timings are not\n"
            "compiled timings."
        )
        self.arm_picker = QComboBox()
        self.arm_picker.setToolTip(
            "The compiled arm whose graph breaks, recompiles and compile times are shown"
        )
        self.arm_picker.currentIndexChanged.connect(self._show_arm)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.breaks = _table(["count", "where", "batch sizes", "reason"])
        self.breaks.setToolTip(
            "Each distinct graph break once (from the graph_breaks log artifact); select one to see your code"
        )
        self.breaks.itemSelectionChanged.connect(self._show_break)
        self.break_detail = QPlainTextEdit()
        self.break_detail.setReadOnly(True)
        self.break_detail.setFont(QFont("monospace", 9))
        self.break_detail.setPlaceholderText(
            "Select a graph break to see the source lines around it and PyTorch's hints."
        )
        breaks_split = QSplitter(Qt.Orientation.Vertical)
        breaks_split.addWidget(self.breaks)
        breaks_split.addWidget(self.break_detail)

        self.recompiles = _table(["bs", "step", "frame", "where", "s", "guard that failed"])
        self.recompiles.setToolTip(
            "Each recompile with the guard failure that caused it (torch._dynamo compilation metrics)"
        )
        self.times = _table(
            [
                "bs",
                "status",
                "first step s",
                "cold s",
                "portable s",
                "warm s",
                "dynamo s",
                "backend s",
                "inductor s",
                "code gen s",
                "FX cache cold / warm",
                "break-even cold / warm",
            ]
        )
        self.times.setToolTip(
            "cold = an empty cache (the first round), portable = a fresh folder loaded with the\n"
            "cold round's torch.compiler.save_cache_artifacts(), warm = the cache the cold round\n"
            "left: each is the first step minus a steady step (+ later recompiles), minus eager's\n"
            "own first-step excess. dynamo/backend/inductor/code gen = torch's own compile-time\n"
            "metrics (first round); FX cache = Inductor's FX-graph cache hits/misses;\n"
            "break-even = training steps that repay the compile. Hover a '-' for why it is missing."
        )
        self.advice = _table(["cause", "fix", "tcprof can verify it with"])
        self.advice.setToolTip(
            "The arm's guard failures grouped into causes, each with the change that removes\n"
            "them. A fix tcprof can apply itself is verified by tcprof run --apply-advice,\n"
            "which adds an arm with it to the same session."
        )
        self.advice.setWordWrap(True)
        details = QTabWidget()
        details.addTab(self.advice, "Advice")
        details.addTab(breaks_split, "Graph breaks")
        details.addTab(self.recompiles, "Recompiles")
        details.addTab(self.times, "Compile time")
        self.details = details

        top = QHBoxLayout()
        top.addWidget(QLabel("Arm:"))
        top.addWidget(self.arm_picker, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.matrix)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(top)
        lower_layout.addWidget(self.summary)
        lower_layout.addWidget(details, 1)
        split.addWidget(lower)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        split.setSizes([120, 360])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(split)

    # -- filling ------------------------------------------------------------------------------
    def show_session(self, session: dict[str, Any]) -> None:
        self.session = session
        arms = session.get("arms", [])
        sizes = list(
            session.get("config", {}).get("batch_sizes")
            or sorted({r["batch_size"] for a in arms for r in a["results"]})
        )
        self._show_matrix(arms, sizes)
        self._offer_compiled_arms(arms)
        self._show_arm()

    def _show_matrix(self, arms: list[dict[str, Any]], sizes: list[int]) -> None:
        self.matrix.clear()
        self.matrix.setColumnCount(1 + len(sizes))
        self.matrix.setHorizontalHeaderLabels(["arm", *[f"bs {b}" for b in sizes]])
        self.matrix.setRowCount(len(arms))
        for r, arm in enumerate(arms):
            self.matrix.setItem(r, 0, _item(arm["name"]))
            by_bs = {row["batch_size"]: row for row in arm["results"]}
            for c, bs in enumerate(sizes, start=1):
                self.matrix.setItem(r, c, _matrix_item(arm, by_bs.get(bs), bs))
        self.matrix.resizeColumnsToContents()

    def _offer_compiled_arms(self, arms: list[dict[str, Any]]) -> None:
        """The picker lists the compiled arms and keeps the one chosen, if it is still there."""
        current = self.arm_picker.currentText()
        self.arm_picker.blockSignals(True)
        self.arm_picker.clear()
        for arm in arms:
            if arm.get("backend") != "eager":
                self.arm_picker.addItem(arm["name"])
        self.arm_picker.blockSignals(False)
        index = self.arm_picker.findText(current)
        self.arm_picker.setCurrentIndex(index if index >= 0 else 0)

    def _arm(self) -> dict[str, Any] | None:
        name = self.arm_picker.currentText()
        return next((a for a in self.session.get("arms", []) if a["name"] == name), None)

    def _show_arm(self) -> None:
        """Fill the lower half for the arm picked: its summary line and the three tables."""
        arm = self._arm()
        for table in (self.advice, self.breaks, self.recompiles, self.times):
            table.setRowCount(0)
        self.break_detail.clear()
        if arm is None:
            self.summary.setText(
                "No compiled arm in this session." if self.session.get("arms") else ""
            )
            return
        self.summary.setText(self._summary_text(arm))
        _fill(self.breaks, [_graph_break_cells(gb) for gb in arm.get("graph_breaks", [])])
        _fill(self.recompiles, [_recompile_cells(rc) for rc in arm.get("recompiles", [])])
        _fill(self.times, [_compile_time_cells(row) for row in arm.get("results", [])])
        advice = arm.get("advice") or []
        _fill(self.advice, [_advice_cells(a) for a in advice])
        self.advice.resizeRowsToContents()
        self.details.setTabText(0, f"Advice ({len(advice)})" if advice else "Advice")
        if self.breaks.rowCount():
            self.breaks.selectRow(0)

    def _summary_text(self, arm: dict[str, Any]) -> str:
        parts = [
            f"{len(arm.get('graph_breaks', []))} distinct graph break(s), {len(arm.get('recompiles', []))} recompile(s)."
        ]
        explain = arm.get("explain")
        if explain:
            parts.append(
                f"explain pre-pass: {explain.get('graph_count')} graph(s), {explain.get('graph_break_count')} break(s), "
                f"{explain.get('op_count')} op(s)."
            )
        for fb in arm.get("fallbacks", []):
            parts.append(f"⚠ bs {fb.get('batch_size')}: {recompile_limit_hit(fb.get('frame'))}.")
        if arm.get("error"):
            parts.append(f"⚠ {arm['error'].get('message')}")
        return " ".join(parts)

    def _show_break(self) -> None:
        arm = self._arm()
        rows = self.breaks.selectionModel().selectedRows() if self.breaks.selectionModel() else []
        if arm is None or not rows:
            return
        gb = arm.get("graph_breaks", [])[rows[0].row()]
        text = [source_context(gb.get("file"), gb.get("line")), "", f"Reason: {gb.get('reason')}"]
        if gb.get("explanation"):
            text.append(f"Explanation: {gb['explanation']}")
        text += [f"Hint: {h}" for h in gb.get("hints") or []]
        self.break_detail.setPlainText("\n".join(text))


def _matrix_item(arm: dict[str, Any], row: dict[str, Any] | None, bs: int) -> QTableWidgetItem:
    """What Dynamo did for one arm at one batch size; the tooltip gives the recompile reasons
    or the error."""
    if row is None:
        return _item("error" if arm.get("error") else "-")
    status = "error" if row["status"] in ("error", "oom") else row.get("compile_status") or "-"
    reasons = [rc["reason"] for rc in arm.get("recompiles", []) if rc.get("batch_size") == bs]
    tip = "\n".join(reasons) if reasons else None
    if status == "error" and row.get("error"):
        tip = row["error"].get("message")
    return _item(STATUS_TEXT.get(status, status), tip, _status_colour(status))


def _fill(table: QTableWidget, rows: list[list[Cell]]) -> None:
    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, (text, tip) in enumerate(cells):
            table.setItem(r, c, _item(text, tip))
    table.resizeColumnsToContents()


def _where(entry: dict[str, Any]) -> str:
    return f"{Path(entry['file']).name}:{entry['line']}" if entry.get("file") else "?"


def _advice_cells(advice: dict[str, Any]) -> list[Cell]:
    evidence = advice.get("evidence") or {}
    where = ", ".join(str(w) for w in evidence.get("where") or [])
    return [
        (advice.get("message"), where or None),
        (advice.get("fix"), None),
        (advice.get("apply") or "-", None),
    ]


def _graph_break_cells(gb: dict[str, Any]) -> list[Cell]:
    """count, where (the full path as tooltip), batch sizes, reason (PyTorch's explanation)."""
    return [
        (gb.get("count"), None),
        (_where(gb), gb.get("file")),
        (", ".join(map(str, gb.get("batch_sizes", []))), None),
        (gb.get("reason"), gb.get("explanation")),
    ]


def _recompile_cells(rc: dict[str, Any]) -> list[Cell]:
    """bs, step, frame, where, seconds, the guard that failed (in full as its tooltip)."""
    return [
        (rc.get("batch_size"), None),
        (rc.get("step"), None),
        (rc.get("frame"), None),
        (_where(rc), None),
        (_secs(rc.get("seconds")), None),
        (rc.get("reason"), rc.get("reason")),
    ]


def _compile_time_cells(row: dict[str, Any]) -> list[Cell]:
    """One batch size's compile times; a missing cold/portable/warm time says why as its tip."""
    b = row.get("compile_breakdown") or {}
    missing = row.get("compile_missing") or {}
    first_ms = row.get("first_step_ms")
    return [
        (row["batch_size"], None),
        (STATUS_TEXT.get(row.get("compile_status") or "", row.get("status")), None),
        (_secs(first_ms / 1000 if first_ms is not None else None), None),
        (_secs(row.get("compile_cold_s", row.get("compile_s"))), missing.get("cold")),
        (_secs(row.get("compile_portable_s")), missing.get("portable")),
        (_secs(row.get("compile_warm_s")), missing.get("warm")),
        (_secs(b.get("dynamo_s")), None),
        (_secs(b.get("backend_s")), None),
        (_secs(b.get("inductor_s")), None),
        (_secs(b.get("code_gen_s")), None),
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
