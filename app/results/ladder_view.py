"""The backend ladder of a Diagnose run (`RunConfig.ladder`), as the reports show it.

One row per stage and batch size (what the stage adds over the one before), then the verdict:
the first stage that diverged from eager and the minifier command for it. The rows and the
sentence are the reports' own (profiler/report/sections/ladder.py).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from tcprof.app.common.table_text import table_text
from tcprof.app.results.insight_tables import fill, make_table
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.ladder import HEADER, rows, verdict

EMPTY = (
    "No backend ladder in this session. Run → Diagnose… runs the ladder on this model: eager, "
    "TorchDynamo capture, + AOTAutograd, + decompositions and the partitioner, + Inductor, to "
    "find which stage costs speed, memory or accuracy."
)


class LadderView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = make_table(HEADER)
        self.verdict = QLabel(EMPTY)
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.verdict)
        layout.addWidget(self.table, 1)

    def table_rows(self) -> list[list[str]]:
        return table_text(self.table)

    def show_session(self, session: SessionModel) -> bool:
        """Fill from the session; False when it holds no ladder."""
        found = rows(session)
        fill(self.table, [[(cell, None) for cell in row] for row in found])
        self.table.setVisible(bool(found))
        self.verdict.setText(verdict(session) or EMPTY if found else EMPTY)
        return bool(found)
