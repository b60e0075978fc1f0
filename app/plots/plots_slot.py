"""The live plots' place in the window, filled once the window has been painted.

pyqtgraph takes ~0.6 s to import. The window shows first with a placeholder here; the plots are
built (and pyqtgraph imported) just after the first paint, or at once when a run or an opened
session needs them earlier.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from tcprof.app.plots.live_plots import LivePlots

# The legend row, three plots with a title and ~60 px of data each, and the step axis: ticks
# and labels never touch, and it still fits a 1024x640 window beside the results' minimum.
MIN_HEIGHT = 310


class _Placeholder(QLabel):
    """Tells the slot when it has first been painted."""

    painted = Signal()

    def paintEvent(self, event: Any) -> None:  # noqa: N802 (Qt API)
        super().paintEvent(event)
        self.painted.emit()


class PlotsSlot(QWidget):
    built = Signal()  # the plots replaced the placeholder

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plots: LivePlots | None = None
        self.first_painted_at: float | None = None  # wall time (start-up benchmarks read it)
        self.placeholder = _Placeholder("preparing plots…")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.painted.connect(self._on_first_paint)
        self.setMinimumHeight(MIN_HEIGHT)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.placeholder)

    def _on_first_paint(self) -> None:
        if self.first_painted_at is None:
            self.first_painted_at = time.time()
            QTimer.singleShot(0, self.ensure)

    def ensure(self) -> LivePlots:
        """The plots, built on the first call."""
        if self.plots is None:
            from tcprof.app.plots.live_plots import LivePlots

            self.plots = LivePlots()
            self._layout.replaceWidget(self.placeholder, self.plots)
            self.placeholder.deleteLater()
            self.built.emit()
        return self.plots
