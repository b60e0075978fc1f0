"""Live plots of step time, throughput and memory against step, one colour per arm.

Plots never redraw per event: events fill `LiveData`'s numpy buffers, and a ~30 Hz QTimer
calls `setData` once per curve whose buffer changed. Each curve gets only its visible
part, peak-decimated to about two points per pixel (`visible_peaks`); pens are 1 px wide and there is no OpenGL: a redraw stays cheap
even after a million steps. Batch-size phases are vertical lines; compile and recompile moments
are markers along the bottom of the step-time plot whose tooltip gives the duration and reason.
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QGraphicsItem, QVBoxLayout, QWidget

from app.live_data import LiveData
from app.theme import arm_colour, configure_pyqtgraph, muted_colour

REDRAW_INTERVAL_MS = 33
CACHE = QGraphicsItem.CacheMode.DeviceCoordinateCache
MAX_POINTS = 2000  # per curve handed to pyqtgraph: about two per horizontal pixel


def visible_peaks(
    x: np.ndarray, y: np.ndarray, x0: float, x1: float, max_points: int = MAX_POINTS
) -> tuple[np.ndarray, np.ndarray]:
    """The part of a curve inside [x0, x1], peak-decimated (min and max per bin) to at most
    about max_points points. x must be non-decreasing (steps arrive in order).

    Doing this here costs a binary search plus one numpy min/max pass over the visible
    points; handing pyqtgraph a million points instead made each redraw ~70 ms."""
    i0 = max(0, int(np.searchsorted(x, x0, side="left")) - 1)
    i1 = min(len(x), int(np.searchsorted(x, x1, side="right")) + 1)
    xs, ys = x[i0:i1], y[i0:i1]
    n = len(xs)
    if n <= max_points:
        return xs, ys
    bins = max_points // 2
    k = n // bins
    m = bins * k
    yb = ys[:m].reshape(bins, k)
    out_y = np.empty(2 * bins + (n - m))
    out_x = np.empty_like(out_y)
    out_y[0 : 2 * bins : 2] = yb.min(axis=1)
    out_y[1 : 2 * bins : 2] = yb.max(axis=1)
    xb = xs[:m:k]
    out_x[0 : 2 * bins : 2] = xb
    out_x[1 : 2 * bins : 2] = xb + (k - 1) * 0.5
    out_x[2 * bins :] = xs[m:]
    out_y[2 * bins :] = ys[m:]
    return out_x, out_y


# (buffer name, plot index, pen style)
CURVES = (
    ("step_ms", 0, Qt.PenStyle.SolidLine),
    ("throughput", 1, Qt.PenStyle.SolidLine),
    ("rss_mb", 2, Qt.PenStyle.SolidLine),
    ("cuda_alloc_mb", 2, Qt.PenStyle.DashLine),
    ("cuda_reserved_mb", 2, Qt.PenStyle.DotLine),
)
PLOT_OF = {key: plot_index for key, plot_index, _ in CURVES}
TITLES = (
    "step time (ms)",
    "throughput (samples/s)",
    "memory (MB): RSS, CUDA alloc - -, reserved ··",
)


def _marker_tip(x: float, y: float, data: object) -> str:
    return str(data)


class LivePlots(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        configure_pyqtgraph()
        self.view = pg.GraphicsLayoutWidget()
        self.view.setToolTip("")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.plots: list[pg.PlotItem] = []
        for row, title in enumerate(TITLES):
            plot = self.view.addPlot(row=row, col=0)
            plot.setTitle(title, size="9pt")
            plot.showGrid(x=False, y=True, alpha=0.2)
            plot.getAxis("bottom").enableAutoSIPrefix(False)
            plot.setMenuEnabled(True)
            plot.getAxis("left").setWidth(52)
            if row:
                plot.setXLink(self.plots[0])
            if row < len(TITLES) - 1:
                plot.getAxis("bottom").setStyle(showValues=False)
            self.plots.append(plot)
        self.plots[-1].setLabel("bottom", "step (all batch sizes in a row)")
        self.legend = self.plots[0].addLegend(offset=(-8, 4), labelTextSize="8pt")
        # Axes (their tick labels and the grid, which the left axis draws across the whole
        # plot), titles and the legend change only when a range or a run changes, yet Qt
        # repaints them whenever a curve under them moves: replaying their QPictures was
        # ~4 ms per axis, most of a frame. A pixmap cache makes those repaints a blit.
        for plot in self.plots:
            for item in (*(plot.getAxis(a) for a in ("left", "bottom")), plot.titleLabel):
                item.setCacheMode(CACHE)
        self.legend.setCacheMode(CACHE)
        self.data: LiveData | None = None
        self._curves: list[dict[str, pg.PlotDataItem]] = []
        self._markers: list[pg.ScatterPlotItem] = []
        self._seen: dict[tuple[int, str], int] = {}
        self._marker_seen: list[int] = []
        self._extras: list[pg.GraphicsObject] = []
        self.last_redraw_s = 0.0
        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_INTERVAL_MS)
        self.timer.timeout.connect(self.refresh)
        # Zooming or panning needs the newly visible part at full detail: redraw every curve.
        self.plots[0].sigXRangeChanged.connect(self._invalidate)

    def _invalidate(self) -> None:
        self._seen = {}

    # -- run lifecycle ------------------------------------------------------------------------
    def start(self, data: LiveData) -> None:
        """Clear the plots and follow a new run's buffers."""
        self.clear()
        self.data = data
        for i, trace in enumerate(data.arms):
            colour = arm_colour(i)
            curves = {}
            for key, plot_index, style in CURVES:
                pen = pg.mkPen(colour, width=1, style=style)
                item = pg.PlotDataItem(
                    pen=pen,
                    name=trace.name if key == "step_ms" else None,
                    skipFiniteCheck=True,
                )
                self.plots[plot_index].addItem(item)
                curves[key] = item
            self._curves.append(curves)
            scatter = pg.ScatterPlotItem(
                size=10,
                pen=pg.mkPen(colour, width=1),
                brush=pg.mkBrush(colour),
                hoverable=True,
                hoverSize=14,
                tip=_marker_tip,
            )
            self.plots[0].addItem(scatter)
            self._markers.append(scatter)
            self._marker_seen.append(-1)
        line_pen = pg.mkPen(muted_colour(), width=1, style=Qt.PenStyle.DashLine)
        for x, bs in data.boundaries():
            for row, plot in enumerate(self.plots):
                line = pg.InfiniteLine(
                    pos=x,
                    angle=90,
                    pen=line_pen,
                    label=f"bs={bs}" if row == 0 else None,
                    labelOpts={
                        "position": 0.92,
                        "color": muted_colour(),
                        "anchors": [(0, 0), (0, 0)],
                    },
                )
                plot.addItem(line)
                self._extras.append((plot, line))
        # The x extent is known before any data: fixing it spares an auto-range pass per frame.
        x_max = float(data.span * max(1, len(data.batch_sizes)))
        for plot in self.plots:
            plot.enableAutoRange(axis="y")
        self.plots[0].setXRange(0, x_max, padding=0.01)
        self.timer.start()

    def stop(self) -> None:
        """Stop the timer after one last redraw (the run ended)."""
        self.refresh()
        self.timer.stop()

    def clear(self) -> None:
        self.timer.stop()
        for curves in self._curves:
            for key, item in curves.items():
                self.plots[PLOT_OF[key]].removeItem(item)
        for scatter in self._markers:
            self.plots[0].removeItem(scatter)
        for plot, item in self._extras:
            plot.removeItem(item)
        self.legend.clear()
        self._curves, self._markers, self._extras = [], [], []
        self._seen, self._marker_seen = {}, []
        self.data = None

    # -- drawing ------------------------------------------------------------------------------
    def refresh(self) -> None:
        """setData once per curve whose buffer changed since the last call."""
        if self.data is None:
            return
        t0 = time.perf_counter()
        x0, x1 = self.plots[0].viewRange()[0]
        for i, trace in enumerate(self.data.arms):
            for key, series in trace.series().items():
                if self._seen.get((i, key)) == series.version or series.n == 0:
                    continue
                self._seen[(i, key)] = series.version
                x, y = series.data()
                self._curves[i][key].setData(*visible_peaks(x, y, x0, x1))
            if self._marker_seen[i] != trace.markers_version:
                self._marker_seen[i] = trace.markers_version
                self._markers[i].setData(
                    x=[m.x for m in trace.markers],
                    y=[0.0] * len(trace.markers),
                    data=[m.text for m in trace.markers],
                    symbol=["t1" if m.kind == "recompile" else "o" for m in trace.markers],
                )
        self.last_redraw_s = time.perf_counter() - t0
