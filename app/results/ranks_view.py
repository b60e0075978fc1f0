"""The "Ranks" tab: the straggler view of distributed arms, as `tcprof run` and the reports
give it (profiler/analysis/stragglers.py): each rank's median step, the spread, the slowest rank, each
rank's compile figures, and below the table, in the warning colour, ranks whose compiles
diverged (a rank that recompiled while the others did not named first). A session without a
distributed arm says so.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.theme import error_colour
from tcprof.profiler.analysis.stragglers import HEADER, cells, rows
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.stragglers import EXPLAIN

NONE_TEXT = (
    "No distributed arm in this session: in the setup's Distributed group, set Parallel to ddp "
    "or fsdp and Processes per node to 2 or more."
)


class RanksView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.explain = QLabel()
        self.explain.setWordWrap(True)
        self.table = QTableWidget(0, len(HEADER))
        self.table.setHorizontalHeaderLabels(list(HEADER))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(
            len(HEADER) - 1, QHeaderView.ResizeMode.Stretch
        )
        self.table.setWordWrap(True)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet(f"color: {error_colour()}")
        layout = QVBoxLayout(self)
        layout.addWidget(self.explain)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.notes)
        self.show_session(SessionModel.from_json({}))

    def show_session(self, session: SessionModel) -> None:
        found = rows(session)
        self.explain.setText(EXPLAIN if found else NONE_TEXT)
        self.table.setVisible(bool(found))
        self.table.setRowCount(len(found))
        for r, entry in enumerate(found):
            for c, text in enumerate(cells(entry)):
                if c == len(HEADER) - 1:  # the compile figures: one rank a line
                    text = text.replace("; ", "\n")
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.resizeRowsToContents()
        notes = [f"{e.arm} bs {e.batch_size}: {note}" for e in found for note in e.notes]
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))

    def has_ranks(self) -> bool:
        return self.table.rowCount() > 0
