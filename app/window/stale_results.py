"""Marks the shown results as belonging to an earlier setup once the setup changes.

When the model, its arms or its batch sizes change after a run (or after a session was
opened), the plots and the results tables still show the earlier measurement. They are kept,
not cleared (switching back, or comparing by eye, stays possible), but marked: the curves are
dimmed and a notice stands above the results' tabs, right over the verdict where the eye goes
first: "Results of the previous setup — press Run to measure this one". (Dimming the tables
too with an opacity effect rendered them dark grey: Qt's effects and scroll areas do not mix.) Changing the setup back
removes the mark; so does the next run or opened session.

What counts as the setup is the model (file, class, factory, input shape), the arms and the
batch sizes: the things that make two measurements incomparable. The fingerprint of what is
shown is taken just after the plots start (deferred, so an opened session's setup, put back
into the panel right after it is shown, is what is recorded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QWidget

from tcprof.app.setup.core_options import CoreFields
from tcprof.profiler.config import ArmSpec, ModelSource

STALE_TEXT = "Results of the previous setup — press Run to measure this one"


@dataclass(frozen=True)
class Fingerprint:
    """The parts of a setup that decide what is measured: the batch sizes as typed, each
    size's words without the spaces around them."""

    source: ModelSource
    arms: tuple[ArmSpec, ...]
    batch_sizes: tuple[str, ...]


def setup_fingerprint(core: CoreFields) -> Fingerprint:
    """What the setup panel's core fields (`SetupPanel.core.held()`) measure."""
    sizes = tuple(b.strip() for b in core.batch_sizes.split(",") if b.strip())
    return Fingerprint(core.source, core.arms, sizes)


class StaleResults(QObject):
    def __init__(self, setup: Any, notice: QLabel, results: QWidget) -> None:
        super().__init__(results)
        self.setup = setup
        self.notice = notice
        self.results = results
        self.plots: Any = None
        self.shown: Fingerprint | None = None  # the fingerprint of what the plots and tables show
        self.stale = False
        notice.setText(STALE_TEXT)
        notice.setStyleSheet(
            "QLabel { background: palette(alternate-base); color: palette(text);"
            " padding: 4px 8px; border-left: 4px solid #E69F00; font-weight: 600; }"
        )
        setup.model.changed.connect(self.check)
        setup.arms.changed.connect(self.check)
        setup.batch_sizes.textChanged.connect(self.check)

    def follow(self, plots: Any) -> None:
        """The plots once built: each start is a fresh measurement (or opened session)."""
        self.plots = plots
        plots.started.connect(lambda: QTimer.singleShot(0, self, self.record))

    def record(self) -> None:
        """What is shown now matches the setup in the panel."""
        self.shown = setup_fingerprint(self.setup.core.held())
        self._mark(False)

    def check(self) -> None:
        if self.shown is not None:
            self._mark(setup_fingerprint(self.setup.core.held()) != self.shown)

    def _mark(self, stale: bool) -> None:
        if stale == self.stale:
            return
        self.stale = stale
        self.notice.setVisible(stale)
        if self.plots is not None:
            self.plots.set_stale(stale)
