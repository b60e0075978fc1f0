"""The verdict at the top of the results: one coloured sentence per compiled arm, in the
engine's words (profiler/analysis/verdict.py, the same as `tcprof run` and the reports), short enough
to read at 1280×720 without scrolling. Hidden while there is no verdict to give."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from tcprof.app.common.field_names import in_app_terms
from tcprof.app.common.theme import error_colour, good_colour
from tcprof.profiler.analysis.verdict import (
    BAD,
    GOOD,
    ArmVerdict,
    session_verdicts,
)
from tcprof.profiler.model.session import SessionModel


def tone_colour(tone: str) -> str | None:
    return {GOOD: good_colour(), BAD: error_colour()}.get(tone)


class VerdictBanner(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.label.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.label.setFont(font)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label)
        self.verdicts: list[ArmVerdict] = []
        self.notes: list[str] = []
        self.hide()

    def show_session(self, session: SessionModel) -> None:
        self.verdicts = session_verdicts(session)
        lines = []
        for v in self.verdicts:
            colour = tone_colour(v.tone)
            style = f' style="color: {colour}"' if colour else ""
            # a failed arm's error names the engine's flags: the window names its fields
            lines.append(f"<div{style}><b>{html.escape(in_app_terms(v.text))}</b></div>")
        self.notes = list(session.notes) if self.verdicts else []
        lines += [f'<div style="font-size: small">{html.escape(n)}</div>' for n in self.notes]
        self.label.setText("".join(lines))
        self.setVisible(bool(self.verdicts))

    def lines(self) -> list[str]:
        return [v.text for v in self.verdicts]
