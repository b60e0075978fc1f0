"""The three plots' frame: their view, titles, axes and grid, laid out one under another.

Axes, titles and the legend are pixmap-cached (replaying their QPictures on every curve update
was most of a frame), and the y grid has major lines only (pyqtgraph draws each minor grid line
at ~0.3 ms). The view adds up its paint time, so the plots' pacing can count it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QGraphicsItem, QLabel, QStackedLayout, QWidget

from tcprof.app.common.theme import muted_colour

CACHE = QGraphicsItem.CacheMode.DeviceCoordinateCache
# the memory plot is the process's RSS (compiler included), not Summary's tensor peak
TITLES = ("step time (ms)", "throughput (samples/s)", "process RSS (MB), compiler included")
CUDA_MEMORY_TITLE = "memory (MB): CUDA allocated - -, reserved ···, process RSS ─"
TITLE_HEIGHT = 18  # px
TICK_DENSITY = 0.6  # of pyqtgraph's default
EMPTY_HINT = (
    "Choose a model file or a training script and press Run (Ctrl+R);\n"
    "step time, throughput (a script's loss) and memory stream here"
)


def build_plots(
    view: pg.GraphicsLayoutWidget, zoomed: Callable[[object], None]
) -> list[pg.PlotItem]:
    """The plots of TITLES in `view`, x-linked, the x axis shown only under the last; `zoomed`
    hears the user's zooms and pans."""
    plots: list[pg.PlotItem] = []
    for row, title in enumerate(TITLES):
        axes = {"left": StepTimeAxis(orientation="left")} if row == 0 else None
        plot = view.addPlot(row=row, col=0, axisItems=axes)
        plot.setTitle(title, size="9pt")
        plot.layout.setRowFixedHeight(0, TITLE_HEIGHT)  # pyqtgraph reserves 30 px
        plot.titleLabel.setMaximumHeight(TITLE_HEIGHT)
        plot.showGrid(x=False, y=True, alpha=0.25)
        # Major ticks (and grid lines) only: three levels of grid lines across a 1,500 px
        # plot took ~8 ms to draw, one level ~0.7 ms.
        plot.getAxis("left").setStyle(maxTickLevel=0)
        # Fewer, further-apart ticks: on a short plot the default density makes labels touch.
        plot.getAxis("left").setTickDensity(TICK_DENSITY)
        plot.getAxis("bottom").enableAutoSIPrefix(False)
        plot.setMenuEnabled(True)
        plot.getAxis("left").setWidth(52)
        # The wheel zooms x and a drag pans x: y keeps its range (the percentile one, or
        # memory's fit), so a zoom never lands in empty space above or below the data.
        plot.vb.setMouseEnabled(x=True, y=False)
        plot.vb.sigRangeChangedManually.connect(zoomed)
        if row:
            plot.setXLink(plots[0])
        if row < len(TITLES) - 1:  # the x axis is shared: only the last plot shows it
            plot.hideAxis("bottom")
        plots.append(plot)
    view.ci.layout.setSpacing(2)
    view.ci.setContentsMargins(2, 0, 8, 2)
    # Axes (their tick labels and the grid, which the left axis draws across the whole
    # plot) and titles change only when a range or a run changes, yet Qt
    # repaints them whenever a curve under them moves: replaying their QPictures was
    # ~4 ms per axis, most of a frame. A pixmap cache makes those repaints a blit.
    for plot in plots:
        for item in (*(plot.getAxis(a) for a in ("left", "bottom")), plot.titleLabel):
            item.setCacheMode(CACHE)
    return plots


def empty_hint() -> QLabel:
    """What to do, shown before any run."""
    hint = QLabel(EMPTY_HINT)
    hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
    hint.setWordWrap(True)
    hint.setStyleSheet(f"color: {muted_colour()}; font-size: 11pt;")
    hint.setAutoFillBackground(True)
    return hint


def hint_over(view: QWidget, hint: QLabel) -> QWidget:
    """The view with the hint over it. The hint covers the plots rather than replacing them:
    they stay laid out at their real size underneath (the benchmarks measure them before any
    data)."""
    pages = QWidget()
    stack = QStackedLayout(pages)
    stack.setStackingMode(QStackedLayout.StackingMode.StackAll)
    stack.addWidget(view)
    stack.addWidget(hint)
    stack.setCurrentWidget(hint)
    return pages


class StepTimeAxis(pg.AxisItem):
    """The step-time plot's y axis: on a log scale, plain numbers (0.05, 0.1, 2) rather than
    pyqtgraph's powers of ten, and ticks inside a range narrower than a decade (pyqtgraph's
    log ticks are only at 1..9 times a power of ten, so 0.058 to 0.18 ms had no label)."""

    def logTickValues(  # noqa: N802 (Qt's)
        self,
        minVal: float,  # noqa: N803 (pyqtgraph's names)
        maxVal: float,  # noqa: N803
        size: float,
        stdTicks: Any,  # noqa: N803
    ) -> list[tuple[float | None, list[float]]]:
        if maxVal - minVal >= 1.0:
            ticks: list[tuple[float | None, list[float]]]
            ticks = super().logTickValues(minVal, maxVal, size, stdTicks)
            return ticks
        lo, hi = 10.0**minVal, 10.0**maxVal
        raw = (hi - lo) / max(2.0, size / 45.0)
        magnitude = 10.0 ** np.floor(np.log10(raw))
        step = magnitude * max(m for m in (1.0, 2.0, 5.0) if m * magnitude <= raw)
        values = np.arange(np.ceil(lo / step) * step, hi, step)
        return [(None, list(np.log10(values[values > 0])))]

    def logTickStrings(  # noqa: N802 (Qt's)
        self, values: list[float], scale: float, spacing: float
    ) -> list[str]:
        return [f"{10.0**v * scale:.3g}" for v in values]


class TimedLayoutWidget(pg.GraphicsLayoutWidget):
    """A GraphicsLayoutWidget that adds up the time its paints take."""

    def __init__(self) -> None:
        super().__init__()
        self._paint_s = 0.0

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        t0 = time.perf_counter()
        super().paintEvent(event)
        self._paint_s += time.perf_counter() - t0

    def take_paint_s(self) -> float:
        """Seconds spent painting since the last call."""
        paint, self._paint_s = self._paint_s, 0.0
        return paint
