"""Two sessions side by side: per arm and batch size, step time, speedup, compile time and
training memory before and after, each change coloured by its direction (better green, worse
red, unchanged grey), with warnings above the table when the runs are not like for like.

The numbers, the directions and the warnings come from the engine's `compare` (the same as
`tcprof compare`): a change is "better" or "worse" only when its interval says so, and the
newer session is "after" whichever order the two were picked in.
"""

from __future__ import annotations

import html

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.table_text import set_header_tip, table_text
from tcprof.app.common.theme import error_colour, good_colour, muted_colour
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.compare import (
    HEADER,
    column_directions,
    comparison_cells,
    diff_sessions,
    outcome_text,
    when,
)

COLUMN_HELP = {
    "median ms": "median step time, before → after",
    "change [95% CI]": "after / before − 1 for the step time (geometric mean of the process "
    "medians), with its 95% interval from both sessions' rounds (none with one round)",
    "time": "better / worse when the interval of the change excludes 0, else unchanged",
    "speedup": "the arm's speedup over the baseline with its interval, before → after",
    "speedup change [95% CI]": "after's speedup / before's - 1, its interval from the two "
    "sessions' paired log speedups with their combined standard error",
    "speedup change": "better / worse when that interval excludes no change; n/a with one round",
    "compile s cold": "compile time with an empty cache, before → after",
    "compile s warm": "compile time with the cache the cold round left, before → after",
    "tensor peak": "the training tensors' steady peak, before → after (change)",
    "memory": "better / worse when the training peak moved by more than 2%",
}


def direction_colour(direction: str) -> QColor:
    if direction == "better":
        return QColor(good_colour())
    if direction == "worse":
        return QColor(error_colour())
    return QColor(muted_colour())


class CompareDialog(QDialog):
    def __init__(
        self,
        first: SessionModel,
        second: SessionModel,
        first_label: str,
        second_label: str,
        parent: QWidget | None = None,
    ) -> None:
        """Two sessions in either order: the newer is shown as "after"."""
        super().__init__(parent)
        self.setWindowTitle("Compare sessions")
        self.resize(1240, 420)
        self.comparison = diff_sessions(first, second)
        self.compared = self.comparison.rows
        swapped = self.comparison.swapped
        before_label, after_label = (
            (second_label, first_label) if swapped else (first_label, second_label)
        )
        self.before_label, self.after_label = before_label, after_label
        title = QLabel(
            f"<b>before</b>: {html.escape(before_label)} ({when(self.comparison.before)})<br>"
            f"<b>after</b>: {html.escape(after_label)} ({when(self.comparison.after)})"
        )
        title.setWordWrap(True)
        self.warnings = QLabel("<br>".join(f"⚠ {html.escape(w)}" for w in self.comparison.warnings))
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet(f"color: {error_colour()}")
        self.warnings.setVisible(bool(self.comparison.warnings))
        worse = self.comparison.regressions
        text = outcome_text(self.comparison)
        self.outcome = QLabel(text[0].upper() + text[1:] + ".")
        self.outcome.setWordWrap(True)
        colour = (
            muted_colour()  # nothing compared is neither good nor bad news
            if self.comparison.compared_nothing
            else error_colour()
            if worse
            else good_colour()
        )
        self.outcome.setStyleSheet(f"color: {colour}")
        self.table = QTableWidget(len(self.compared), len(HEADER))
        self.table.setHorizontalHeaderLabels(HEADER)
        for c, h in enumerate(HEADER):
            if h in COLUMN_HELP:
                set_header_tip(self.table, c, COLUMN_HELP[h])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        for r, row in enumerate(self.compared):
            cells = zip(comparison_cells(row), column_directions(row), strict=True)
            for c, (text, direction) in enumerate(cells):
                item = QTableWidgetItem(text)
                if direction:
                    item.setForeground(direction_colour(direction))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        empty = QLabel("The table is empty: the sessions share no arm and batch size.")
        empty.setVisible(not self.compared)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.warnings)
        layout.addWidget(self.outcome)
        layout.addWidget(empty)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def rows(self) -> list[list[str]]:
        return table_text(self.table)
