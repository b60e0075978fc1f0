"""The "Profile" tab: top operators by self time from the optional torch.profiler pass.

The pass runs after the measured steps, separately, so the profiler's overhead never enters the
reported timings; its numbers explain *where* a step's time goes (per arm and batch size), not
how long a step takes. The table filters by arm and batch size; "Eager against compiled" puts
the baseline's top operators beside a compiled arm's at the same batch size, with the time each
operator moved (profiler/report/sections/top_ops.py, as report.html shows it). The Chrome/Perfetto trace
it wrote is one click away.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QColor, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.table_text import table_text
from tcprof.app.common.theme import error_colour, good_colour, session_arm_colour
from tcprof.profiler.model.profile import Profile, TopOp
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.top_ops import (
    comparable,
    comparison_problem,
    moves,
    profile_note,
)

NO_PROFILE = Profile(None, None, (), None, None, None)
HEADER = ["arm", "bs", "operator", "calls/step", "self ms/step", "total ms/step"]
ALL = None
NO_PAIR = (
    "No batch size has a torch.profiler pass of both the baseline and a compiled arm: "
    "nothing to put side by side."
)
EMPTY = (
    'No torch.profiler pass in this session: set "torch.profiler steps" above 0 in the setup '
    "panel (a separate pass after the measured steps; it does not change the timings)."
)


def profile_rows(session: SessionModel) -> list[tuple[int, str, int, TopOp, str | None]]:
    """(arm index, arm name, batch size, op, trace path or None) for every top operator
    recorded."""
    return [
        (i, arm.name, row.batch_size, op, row.profile.path)
        for i, arm in enumerate(session.arms)
        for row in arm.rows
        if row.profile
        for op in row.profile.top_ops
    ]


def _num(value: Any, digits: int = 3) -> str:
    return f"{value:.{digits}f}" if isinstance(value, (int, float)) else "-"


def _table(columns: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(columns)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.setAlternatingRowColors(True)
    return table


def _refill(
    combo: QComboBox, everything: str, values: list[Any], label: Callable[[Any], str] = str
) -> None:
    """Offer `values` after an "all" entry, keeping the current choice when it is still there."""
    current = combo.currentData()
    combo.blockSignals(True)
    combo.clear()
    combo.addItem(everything, ALL)
    for value in values:
        combo.addItem(label(value), value)
    index = combo.findData(current)
    combo.setCurrentIndex(index if index >= 0 else 0)
    combo.blockSignals(False)


class ProfileView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = SessionModel.from_json({"arms": []})
        self.note = QLabel(EMPTY)
        self.note.setWordWrap(True)
        self.arm_filter = QComboBox()
        self.arm_filter.setToolTip("Show one arm's operators only")
        self.bs_filter = QComboBox()
        self.bs_filter.setToolTip("Show one batch size's operators only")
        for combo in (self.arm_filter, self.bs_filter):
            combo.currentIndexChanged.connect(self._fill_operators)
        self.table = _table(HEADER)
        filters = QHBoxLayout()
        filters.addWidget(QLabel("Arm:"))
        filters.addWidget(self.arm_filter)
        filters.addWidget(QLabel("Batch size:"))
        filters.addWidget(self.bs_filter)
        filters.addStretch(1)
        operators = QWidget()
        operators_layout = QVBoxLayout(operators)
        operators_layout.setContentsMargins(0, 0, 0, 0)
        operators_layout.addLayout(filters)
        operators_layout.addWidget(self.table, 1)

        self.pair = QComboBox()
        self.pair.setToolTip("The compiled arm and batch size to put beside the baseline")
        self.pair.currentIndexChanged.connect(self._fill_comparison)
        self.comparison = _table(["operator", "eager ms/step", "compiled ms/step", "moved ms"])
        self.comparison.setToolTip(
            "Self ms per step of each operator in either top list; moved = compiled less eager\n"
            "(green: time saved; red: time added). An operator missing from one side's top list\n"
            "(below it, or fused away by Inductor) counts as 0 there."
        )
        self.comparison_note = QLabel(NO_PAIR)
        self.comparison_note.setWordWrap(True)
        pair_row = QHBoxLayout()
        pair_row.addWidget(QLabel("Compiled arm:"))
        pair_row.addWidget(self.pair)
        pair_row.addStretch(1)
        side_by_side = QWidget()
        side_layout = QVBoxLayout(side_by_side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addLayout(pair_row)
        side_layout.addWidget(self.comparison_note)
        side_layout.addWidget(self.comparison, 1)
        self.views = QTabWidget()
        self.views.addTab(operators, "Operators")
        self.views.addTab(side_by_side, "Eager against compiled")

        self.open_trace = QPushButton("Open trace folder")
        self.open_trace.setToolTip(
            "The Chrome/Perfetto traces (torch.profiler export_chrome_trace): open them in "
            "chrome://tracing or ui.perfetto.dev"
        )
        self.open_trace.clicked.connect(self._open_folder)
        heading = QHBoxLayout()  # one row: the tab is short at the default window size
        heading.addWidget(self.note, 1)
        heading.addWidget(self.open_trace, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(heading)
        layout.addWidget(self.views, 1)
        self._trace: str | None = None
        self.show_session(self.session)

    def show_session(self, model: SessionModel) -> None:
        """Fill both views from the session's model."""
        self.session = model
        rows = profile_rows(model)
        _refill(self.arm_filter, "all arms", list(dict.fromkeys(name for _i, name, *_ in rows)))
        _refill(
            self.bs_filter, "all batch sizes", list(dict.fromkeys(bs for _i, _n, bs, *_ in rows))
        )
        pairs = comparable(model)
        current = self.pair.currentData()
        self.pair.blockSignals(True)
        self.pair.clear()
        for name, bs in pairs:
            self.pair.addItem(f"{name} · bs {bs}", (name, bs))
        index = self.pair.findData(current)
        self.pair.setCurrentIndex(index if index >= 0 else 0)
        self.pair.blockSignals(False)
        self._fill_operators()
        self._fill_comparison()
        self.views.setVisible(bool(rows))
        self._trace = next((p for *_, p in rows if p), None)
        self.open_trace.setVisible(self._trace is not None)
        profiled = [
            (arm, row, row.profile) for arm in model.arms for row in arm.rows if row.profile
        ]
        steps = {profile.steps for _arm, _row, profile in profiled}
        flagged = [
            f"{arm.name} bs {row.batch_size}" for arm, row, profile in profiled if profile.mismatch
        ]
        self.note.setText(
            f"Top operators by self time per step, from a separate torch.profiler pass of "
            f"{', '.join(str(s) for s in sorted(steps, key=str))} step(s) per arm and batch size "
            "after the measured steps (not part of the timings)."
            + (
                f" ⚠ Flagged ({', '.join(flagged)}): the profiled steps do not match the "
                "measured step, so their operator times are not the step's (hover a row)."
                if flagged
                else ""
            )
            if rows
            else EMPTY
        )

    def _fill_operators(self) -> None:
        arm_wanted, bs_wanted = self.arm_filter.currentData(), self.bs_filter.currentData()
        rows = [
            row
            for row in profile_rows(self.session)
            if arm_wanted in (ALL, row[1]) and bs_wanted in (ALL, row[2])
        ]
        self.table.setRowCount(len(rows))
        for r, (arm_index, name, bs, op, path) in enumerate(rows):
            cells = [
                name,
                str(bs),
                str(op.name),
                "-" if op.calls is None else str(op.calls),
                _num(op.self_ms_per_step),
                _num(op.total_ms_per_step),
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 0:
                    item.setForeground(session_arm_colour(self.session, arm_index))
                note = profile_note(self._profile(arm_index, bs))
                item.setToolTip(f"{note}\ntrace: {path}" if path else note)
                if c in (4, 5) and "Flagged" in note:  # times that are not the step's
                    item.setForeground(QColor(error_colour()))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()

    def _fill_comparison(self) -> None:
        pair = self.pair.currentData()
        found = moves(self.session, *pair) if pair else []
        problem = comparison_problem(self.session, *pair) if pair else None
        self.comparison_note.setText(f"{problem}." if problem and found else NO_PAIR)
        self.comparison_note.setStyleSheet(f"color: {error_colour()};" if problem else "")
        self.comparison_note.setVisible(not found or bool(problem))
        self.comparison.setVisible(bool(found))
        baseline = self.session.baseline or "eager"
        if pair:
            self.comparison.setHorizontalHeaderLabels(
                ["operator", f"{baseline} ms/step", f"{pair[0]} ms/step", "moved ms"]
            )
        self.comparison.setRowCount(len(found))
        for r, move in enumerate(found):
            moved = move.moved_ms
            cells = [
                move.name,
                _num(move.eager_ms),
                _num(move.compiled_ms),
                f"{moved:+.3f}",
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 3 and moved and not problem:  # a mismatched profile saves nothing
                    item.setForeground(QColor(good_colour() if moved < 0 else error_colour()))
                self.comparison.setItem(r, c, item)
        self.comparison.resizeColumnsToContents()

    def _profile(self, arm_index: int, bs: int) -> Profile:
        """The row's profile, for the reports' note on it (an empty one where it has none)."""
        arms = self.session.arms
        rows = arms[arm_index].rows if arm_index < len(arms) else ()
        return next((r.profile for r in rows if r.batch_size == bs and r.profile), NO_PROFILE)

    def rows(self) -> list[list[str]]:
        return table_text(self.table)

    def comparison_rows(self) -> list[list[str]]:
        return table_text(self.comparison)

    def _open_folder(self) -> None:
        if self._trace:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(self._trace).parent)))
