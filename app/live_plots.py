"""Live plots of step time, throughput and memory against step, one colour per arm.

Plots never redraw per event: events fill `LiveData`'s numpy buffers, and a timer pulls from
them. Each tick redraws at most one of the three plots (round-robin, only a plot whose data
changed), so each plot still updates ~30 times a second but the GUI thread never paints all
three in one go; after an expensive tick the next one waits, so plotting takes at most about
a third of the GUI thread's time however slow painting gets (see `LivePlots._tick`).

Each curve gets only its visible part, peak-decimated to about two points per pixel
(`visible_peaks`); pens are 1 px wide, no antialiasing, no OpenGL. Axes, titles and the legend
are pixmap-cached (replaying their QPictures on every curve update was most of a frame), and the
y grid has major lines only (pyqtgraph draws each minor grid line at ~0.3 ms). Batch-size phases
are vertical lines; compile and recompile moments are markers along the bottom of the step-time
plot whose tooltip gives the duration and reason.
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QGraphicsItem, QVBoxLayout, QWidget

from app.live_data import LiveData
from app.theme import arm_colour, configure_pyqtgraph, muted_colour

REDRAW_INTERVAL_MS = 33  # each plot's refresh period
TICK_MS = REDRAW_INTERVAL_MS // 3  # one plot per tick, round-robin
PLOT_DUTY = 0.35  # the most of the GUI thread's time the plots may take
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
PLOT_KEYS = tuple(tuple(k for k, p, _ in CURVES if p == index) for index in range(3))
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
        self.view = _TimedLayoutWidget()
        self.view.setToolTip("")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.plots: list[pg.PlotItem] = []
        for row, title in enumerate(TITLES):
            plot = self.view.addPlot(row=row, col=0)
            plot.setTitle(title, size="9pt")
            plot.showGrid(x=False, y=True, alpha=0.25)
            # Major ticks (and grid lines) only: three levels of grid lines across a 1,500 px
            # plot took ~8 ms to draw, one level ~0.7 ms.
            plot.getAxis("left").setStyle(maxTickLevel=0)
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
        self.last_redraw_s = 0.0  # the last refresh's setData work (not the paint)
        self.ticks = 0
        self.skipped_ticks = 0
        self._next_plot = 0
        self._last_tick = 0.0
        self._last_cost = 0.0
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        # Zooming or panning needs the newly visible part at full detail: redraw every curve.
        self.plots[0].sigXRangeChanged.connect(self._invalidate)

    def _invalidate(self) -> None:
        self._seen = {}

    # -- run lifecycle ------------------------------------------------------------------------
    def start(self, data: LiveData) -> None:
        """Clear the plots and follow a new run's buffers."""
        self.clear()
        self.data = data
        self._follow_arms()
        self._next_plot, self._last_tick, self._last_cost = 0, 0.0, 0.0
        self._sections_seen, self._lines_drawn, self._x_max = -1, 0, 0.0
        for plot in self.plots:
            plot.enableAutoRange(axis="y")
        self._update_layout()
        self.timer.start()

    def _follow_arms(self) -> None:
        """Curves and markers for every arm of the data, including arms added mid-run
        (--apply-advice's fixed arms)."""
        assert self.data is not None
        for i in range(len(self._curves), len(self.data.arms)):
            trace = self.data.arms[i]
            colour = arm_colour(i)
            curves = {}
            for key, plot_index, style in CURVES:
                pen = pg.mkPen(colour, width=1, style=style)
                item = pg.PlotDataItem(
                    pen=pen,
                    name=trace.name if key == "step_ms" else None,
                    connect="finite",  # a NaN breaks the line between sections
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
    def _tick(self) -> None:
        """Redraw the next plot whose data changed, unless the last redraw was expensive.

        A tick's cost is its setData work plus the paint it causes (timed by the view). After
        a tick costing c, the next waits until c / PLOT_DUTY has passed since it started: with
        cheap paints every tick runs (each plot at ~30 Hz); with slow ones (a huge window, a slow
        machine) the plots update less often instead of starving the event loop."""
        if self.data is None:
            return
        now = time.perf_counter()
        # The paint the previous tick caused has happened by now (Qt paints before it next
        # runs timers); other paints (hover, resize) count too.
        self._last_cost += self.view.take_paint_s()
        if now < self._last_tick + self._last_cost / PLOT_DUTY:
            self.skipped_ticks += 1
            return
        for k in range(len(self.plots)):
            index = (self._next_plot + k) % len(self.plots)
            t0 = time.perf_counter()
            if self._refresh_plot(index):
                self._last_cost = time.perf_counter() - t0
                self._last_tick = now
                self._next_plot = (index + 1) % len(self.plots)
                self.ticks += 1
                return

    def refresh(self) -> bool:
        """Bring every plot up to date now (the run ended; benchmarks). True if any changed."""
        changed = False
        for index in range(len(self.plots)):
            changed |= self._refresh_plot(index)
        return changed

    def _update_layout(self) -> bool:
        """Add the lines of sections that began (a batch size in a round) and widen the x range
        when the data went past it. The range is otherwise fixed: that spares an auto-range
        pass per frame."""
        data = self.data
        if data is None or self._sections_seen == data.sections_version:
            return False
        self._sections_seen = data.sections_version
        line_pen = pg.mkPen(muted_colour(), width=1, style=Qt.PenStyle.DashLine)
        sections = data.sections()
        for x, label in sections[self._lines_drawn :]:
            for row, plot in enumerate(self.plots):
                line = pg.InfiniteLine(
                    pos=x,
                    angle=90,
                    pen=line_pen,
                    label=label if row == 0 else None,
                    labelOpts={
                        "position": 0.92,
                        "color": muted_colour(),
                        "anchors": [(0, 0), (0, 0)],
                    },
                )
                if getattr(line, "label", None) is not None:
                    line.label.setCacheMode(CACHE)
                plot.addItem(line)
                self._extras.append((plot, line))
        self._lines_drawn = len(sections)
        x_max = data.x_extent()
        if x_max > self._x_max:
            self._x_max = x_max * (1.0 if self._x_max == 0.0 else 1.1)
            self.plots[0].setXRange(0, self._x_max, padding=0.01)
        return True

    def _refresh_plot(self, index: int) -> bool:
        """setData once per curve of plot `index` whose buffer changed since it was last drawn.
        Returns whether anything changed."""
        if self.data is None:
            return False
        t0 = time.perf_counter()
        changed = self._update_layout() if index == 0 else False
        self._follow_arms()
        x0, x1 = self.plots[0].viewRange()[0]
        for i, trace in enumerate(self.data.arms):
            series = trace.series()
            for key in PLOT_KEYS[index]:
                s = series[key]
                if self._seen.get((i, key)) == s.version or s.n == 0:
                    continue
                self._seen[(i, key)] = s.version
                x, y = s.data()
                self._curves[i][key].setData(*visible_peaks(x, y, x0, x1))
                changed = True
            if index == 0 and self._marker_seen[i] != trace.markers_version:
                self._marker_seen[i] = trace.markers_version
                self._markers[i].setData(
                    x=[m.x for m in trace.markers],
                    y=[0.0] * len(trace.markers),
                    data=[m.text for m in trace.markers],
                    symbol=["t1" if m.kind == "recompile" else "o" for m in trace.markers],
                )
                changed = True
        if changed:
            self.last_redraw_s = time.perf_counter() - t0
        return changed


class _TimedLayoutWidget(pg.GraphicsLayoutWidget):
    """A GraphicsLayoutWidget that adds up the time its paints take."""

    def __init__(self) -> None:
        super().__init__()
        self._paint_s = 0.0

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        t0 = time.perf_counter()
        super().paintEvent(event)
        self._paint_s += time.perf_counter() - t0

    def take_paint_s(self) -> float:
        """Seconds spent painting since the last call."""
        paint, self._paint_s = self._paint_s, 0.0
        return paint
