"""The status bar's run line: arm, batch size, phase, time running, and a progress bar.

A compile can take tens of seconds with no event in between, so the phase's elapsed time is
redrawn by a 4 Hz timer ("compiling… 12.3 s"), not only when events arrive.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

PHASE_TEXT = {
    "loading": "loading model",
    "compiling": "compiling",
    "first_step": "first step",
    "warmup": "warm-up",
    "measuring": "measuring",
    "accuracy": "accuracy check (untimed)",
    "profiling": "torch.profiler pass",
    "explain": "explain pre-pass",
    "idle": "waiting",
}


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
        self.names: list[str] = []
        self.total = 0
        self.done = 0
        self.arm: int | None = None
        self.batch_size: int | None = None
        self.phase = "starting workers"
        self.phase_since = time.monotonic()
        self.run_since = time.monotonic()
        self.replicates = 1
        self.round: int | None = None

    def start(self, arm_names: list[str], config: Any) -> None:
        """Progress counts each arm's first step and measured blocks, per batch size and round
        (a block may run more steps than asked for, to last its minimum time)."""
        self.names = list(arm_names)
        blocks = max(1, min(config.blocks, config.steps))
        self.replicates = max(1, config.replicates)
        self.total = len(arm_names) * len(config.batch_sizes) * (blocks + 1) * self.replicates
        self.done = 0
        self.round = None
        self.arm, self.batch_size, self.phase = None, None, "starting workers"
        self.phase_since = self.run_since = time.monotonic()
        self.progress.setRange(0, max(1, self.total))
        self.progress.setValue(0)
        self.progress.show()
        self.timer.start()
        self._redraw()

    def update_from(self, events: list[dict[str, Any]]) -> None:
        for e in events:
            kind = e.get("type")
            if kind == "phase":
                self.arm, self.batch_size = e.get("arm"), e.get("batch_size")
                self.phase = PHASE_TEXT.get(e.get("phase"), str(e.get("phase")))
                self.phase_since = time.monotonic()
            elif kind in ("first_step", "block_done"):
                self.done += 1
            elif kind == "round_start":
                self.round = e.get("replicate")
        self.progress.setValue(min(self.done, self.total))
        self._redraw()

    def text(self) -> str:
        return self.label.text()

    def _redraw(self) -> None:
        parts = []
        if isinstance(self.round, int) and self.replicates > 1:
            parts.append(f"round {self.round + 1}/{self.replicates}")
        if isinstance(self.arm, int) and 0 <= self.arm < len(self.names):
            parts.append(self.names[self.arm])
        if self.batch_size is not None:
            parts.append(f"bs {self.batch_size}")
        elapsed = time.monotonic() - self.phase_since
        parts.append(f"{self.phase}… {elapsed:.1f} s")
        total = time.monotonic() - self.run_since
        self.label.setText(" · ".join(parts) + f"   (run {total:.0f} s)")

    def finish(self, text: str) -> None:
        self.timer.stop()
        self.progress.hide()
        self.label.setText(text)
