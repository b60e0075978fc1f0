"""The status bar's run line: round, arm, batch size, phase, time running, and a progress bar.

A compile can take tens of seconds with no event in between, so the phase's elapsed time is
redrawn by a 4 Hz timer ("compiling… 12.3 s"), not only when events arrive. What the line says
comes from profiler.progress_model, as on the terminal.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from profiler.progress_model import ProgressModel


class RunStatus(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel("Ready")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.progress.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.progress)
        self.timer = QTimer(self)
        self.timer.setInterval(250)
        self.timer.timeout.connect(self._redraw)
        self.model: ProgressModel | None = None

    def start(self, arm_names: list[str], config: Any) -> None:
        self.model = ProgressModel(arm_names, config)
        self.progress.setRange(0, max(1, self.model.total))
        self.progress.setValue(0)
        self.progress.show()
        self.timer.start()
        self._redraw()

    def update_from(self, events: list[dict[str, Any]]) -> None:
        if self.model is None:
            return
        for e in events:
            self.model.apply(e)
        self.progress.setValue(min(self.model.done, self.model.total))
        self._redraw()

    def text(self) -> str:
        return self.label.text()

    def _redraw(self) -> None:
        m = self.model
        if m is None:
            return
        self.label.setText(
            f"{m.where()}… {m.phase_elapsed_s():.1f} s   (run {m.run_elapsed_s():.0f} s)"
        )

    def finish(self, text: str) -> None:
        self.timer.stop()
        self.progress.hide()
        self.label.setText(text)
