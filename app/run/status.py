"""The status bar's run line: round, arm, batch size, phase, time running, time left; and the
run's indicator: what it is doing now, for how long, and a progress bar.

A compile can take tens of seconds with no event in between, so the phase's elapsed time is
redrawn by a 4 Hz timer ("compiling… 12.3 s"), not only when events arrive. The line is the
status bar's ordinary text, which a temporary message (a hovered button's hint) covers for a
while; the indicator ("compiling inductor, bs 16 · 12 s", then the progress bar) is a
permanent widget of the status bar (the window puts it there), which nothing covers. Its bar
is busy while the phase has no steps to count (loading, compiling, the first step), and counts
first steps and measured blocks otherwise. What the line says comes from
tcprof.profiler.run.progress_model, as on the terminal; the time left from
tcprof.profiler.run.time_left (the run's estimate, corrected by its pace so far).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from tcprof.profiler.analysis.stopping import stop_text
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.event_text import phase_text, phase_words
from tcprof.profiler.run.estimate import Estimate
from tcprof.profiler.run.progress_model import ProgressModel
from tcprof.profiler.run.time_left import TimeLeft

# What a run is doing, as the close question says it: "compiling inductor, bs 16".
ACTIVITY = {
    "loading": "loading the model for",
    "compiling": "compiling",
    "first_step": "taking the first step of",
    "warmup": "warming up",
    "measuring": "measuring",
    "accuracy": "checking the accuracy of",
    "profiling": "profiling",
}
# Phases with no step to count: the indicator's bar is busy rather than stuck.
BUSY_PHASES = (None, "loading", "compiling", "first_step", "accuracy", "profiling")
INDICATOR_TIP = (
    "What the run is doing now and for how long it has (a compile can take minutes with no\n"
    "step to count). The bar counts each arm's first step and measured blocks, per batch size\n"
    "and round; it is busy while the phase has none: loading, compiling, the first step."
)


class RunStatus(QWidget):
    def __init__(
        self, parent: QWidget | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """clock: the run's time (tests give their own)."""
        super().__init__(parent)
        self.clock = clock
        self.label = QLabel("Ready")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        # The indicator: a permanent widget of the window's status bar, shown during a run.
        self.indicator = QWidget()
        self.indicator.setObjectName("run_indicator")
        self.indicator.setToolTip(INDICATOR_TIP)
        self.phase = QLabel()
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        indicator = QHBoxLayout(self.indicator)
        indicator.setContentsMargins(0, 0, 4, 0)
        indicator.addWidget(self.phase)
        indicator.addWidget(self.progress)
        self.indicator.hide()
        self.timer = QTimer(self)
        self.timer.setInterval(250)
        self.timer.timeout.connect(self._redraw)
        self.model: ProgressModel | None = None
        self.time_left: TimeLeft | None = None

    def start(self, arm_names: list[str], config: Any, estimate: Estimate | None = None) -> None:
        self.model = ProgressModel(arm_names, config, clock=self.clock)
        self.time_left = TimeLeft(estimate) if estimate is not None else None
        self.progress.setRange(0, max(1, self.model.total))
        self.progress.setValue(0)
        self.indicator.show()
        self.timer.start()
        self._redraw()

    def update_from(self, events: list[dict[str, Any]]) -> None:
        if self.model is None:
            return
        for e in events:
            self.model.apply(e)
            if self.time_left is not None:
                self.time_left.apply(e)
        self._redraw()

    def text(self) -> str:
        return self.label.text()

    def activity(self) -> str:
        """What the run is doing now: 'compiling inductor, bs 16' ('' before it reports)."""
        m = self.model
        if m is None or m.current is None:
            return "" if m is None else "starting workers"
        now = m.arms[m.current]
        verb = ACTIVITY.get(str(now.phase), phase_text(now.phase))
        words = phase_words(now.batch_size, m.script)
        where = f", {words}" if words else ""
        return f"{verb} {m.arm_name(m.current)}{where}"

    def busy(self) -> bool:
        """Whether the phase now has no step to count (the indicator's bar is busy)."""
        m = self.model
        return m is not None and (m.current is None or m.arms[m.current].phase in BUSY_PHASES)

    def _redraw(self) -> None:
        m = self.model
        if m is None:
            return
        run = f"run {units.duration(m.run_elapsed_s())}"
        if self.time_left is not None:
            run += f" · {self.time_left.text()}"
        self.label.setText(f"{m.where()}… {units.duration(m.phase_elapsed_s())}   ({run})")
        self.phase.setText(f"{self.activity()} · {units.duration(m.phase_elapsed_s())}")
        if self.busy():
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, max(1, m.total))
            self.progress.setValue(min(m.done, m.total))

    def finish_run(self, status: str, session: SessionModel, folder: object = None) -> None:
        """The line a finished run leaves: how it ended, why it stopped where it stopped when
        settled (analysis/stopping.py), where it was saved."""
        stopped = stop_text(session.stopping)
        why = f" · {stopped}" if stopped else ""
        where = f" · saved in {folder}" if folder else ""
        self.finish(f"Run {status.replace('_', ' ')}{why}{where}")

    def finish(self, text: str) -> None:
        self.time_left = None
        self.timer.stop()
        self.indicator.hide()
        self.label.setText(text)
