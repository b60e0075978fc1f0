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
are vertical lines; compile and recompile moments are markers near the bottom of the step-time
plot, each arm at its own height so arms compiling at the same step do not hide each other,
whose tooltip gives the duration and reason. The legend is a row above the plots
(plot_legend.py), the hover readout a crosshair (plot_readout.py), a distributed arm's rank
spread a band (plot_band.py). Before any run the plots are replaced by a hint of what to do.
"""

from __future__ import annotations

import time

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QGraphicsItem,
    QLabel,
    QStackedLayout,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.theme import arm_qcolours, configure_pyqtgraph, muted_colour
from tcprof.app.plots.band import band_item, band_path
from tcprof.app.plots.decimation import visible_peaks
from tcprof.app.plots.legend import PlotLegend
from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.readout import Crosshair

REDRAW_INTERVAL_MS = 33  # each plot's refresh period
TICK_MS = REDRAW_INTERVAL_MS // 3  # one plot per tick, round-robin
PLOT_DUTY = 0.35  # the most of the GUI thread's time the plots may take
CACHE = QGraphicsItem.CacheMode.DeviceCoordinateCache
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
TITLES = ("step time (ms)", "throughput (samples/s)", "memory (MB): RSS")
CUDA_MEMORY_TITLE = "memory (MB): CUDA allocated - -, reserved ···, RSS ─"
EMPTY_HINT = "Choose a model and press Run (Ctrl+R);\nstep time, throughput and memory stream here"
STALE_OPACITY = 0.35  # the curves of a run whose setup has since changed
TITLE_HEIGHT = 18  # px
TICK_DENSITY = 0.6  # of pyqtgraph's default
MARKER_SIZE = 10  # px
MARKER_ROWS = 4  # arms' marker rows above the plot's bottom edge (then repeating)


def _marker_tip(x: float, y: float, data: object) -> str:
    return str(data)


class LivePlots(QWidget):
    started = Signal()  # a run's or a session's data replaced what was shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        configure_pyqtgraph()
        self.view = _TimedLayoutWidget()
        self.view.setToolTip("")
        self.legend = PlotLegend()
        self.hint = QLabel(EMPTY_HINT)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet(f"color: {muted_colour()}; font-size: 11pt;")
        self.hint.setAutoFillBackground(True)
        # The hint covers the plots rather than replacing them: they stay laid out at their
        # real size underneath (the benchmarks measure them before any data).
        self.pages = QWidget()
        stack = QStackedLayout(self.pages)
        stack.setStackingMode(QStackedLayout.StackingMode.StackAll)
        stack.addWidget(self.view)
        stack.addWidget(self.hint)
        stack.setCurrentWidget(self.hint)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.legend)
        layout.addWidget(self.pages, 1)
        self.plots: list[pg.PlotItem] = []
        for row, title in enumerate(TITLES):
            plot = self.view.addPlot(row=row, col=0)
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
            if row:
                plot.setXLink(self.plots[0])
            if row < len(TITLES) - 1:  # the x axis is shared: only the last plot shows it
                plot.hideAxis("bottom")
            self.plots.append(plot)
        self.view.ci.layout.setSpacing(2)
        self.view.ci.setContentsMargins(2, 0, 8, 2)
        self.plots[-1].setLabel("bottom", "step (all batch sizes in a row)")
        # Axes (their tick labels and the grid, which the left axis draws across the whole
        # plot) and titles change only when a range or a run changes, yet Qt
        # repaints them whenever a curve under them moves: replaying their QPictures was
        # ~4 ms per axis, most of a frame. A pixmap cache makes those repaints a blit.
        for plot in self.plots:
            for item in (*(plot.getAxis(a) for a in ("left", "bottom")), plot.titleLabel):
                item.setCacheMode(CACHE)
        self.crosshair = Crosshair(self.plots, self.view.scene())
        self.data: LiveData | None = None
        self.colours: list = []
        self.stale = False
        self._cuda: bool | None = None
        self._curves: list[dict[str, pg.PlotDataItem]] = []
        self._markers: list[pg.ScatterPlotItem] = []
        self._bands: list = []
        self._band_seen: dict[int, int] = {}
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
        self.plots[0].sigYRangeChanged.connect(self._place_markers)
        self.plots[0].vb.sigResized.connect(self._place_markers)

    def _invalidate(self) -> None:
        self._seen = {}
        self._band_seen = {}

    @property
    def showing_hint(self) -> bool:
        """Whether the empty-state hint stands in for the plots (before any run)."""
        return not self.hint.isHidden()

    def set_stale(self, stale: bool) -> None:
        """Dim the curves (the setup changed since they were measured) or bring them back."""
        if stale == self.stale:
            return  # an opacity set even to 1.0 is not free for Qt to paint
        self.stale = stale
        for plot in self.plots:
            plot.vb.setOpacity(STALE_OPACITY if stale else 1.0)
        self.legend.setEnabled(not stale)

    # -- run lifecycle ------------------------------------------------------------------------
    def start(self, data: LiveData) -> None:
        """Clear the plots and follow a new run's buffers."""
        self.clear()
        self.data = data
        self.hint.hide()
        self.set_stale(False)
        self._cuda = None
        self._follow_arms()
        self._next_plot, self._last_tick, self._last_cost = 0, 0.0, 0.0
        self._sections_seen, self._lines_drawn, self._x_max = -1, 0, 0.0
        for plot in self.plots:
            plot.enableAutoRange(axis="y")
        self._update_layout()
        self.timer.start()
        self.started.emit()

    def _update_memory_title(self) -> None:
        """Name CUDA memory only on a CUDA run (its device, or CUDA figures in its data)."""
        cuda = self.data is not None and self.data.uses_cuda()
        if cuda != self._cuda:
            self._cuda = cuda
            self.plots[2].setTitle(CUDA_MEMORY_TITLE if cuda else TITLES[2], size="9pt")
            self.crosshair.follow(self.data, self.colours, cuda)

    def _follow_arms(self) -> None:
        """Curves and markers for every arm of the data, including arms added mid-run
        (--apply-advice's fixed arms)."""
        assert self.data is not None
        if len(self._curves) == len(self.data.arms):
            return
        self.colours = arm_qcolours([t.eager for t in self.data.arms])
        for i in range(len(self._curves), len(self.data.arms)):
            colour = self.colours[i]
            curves = {}
            for key, plot_index, style in CURVES:
                pen = pg.mkPen(colour, width=1, style=style)
                item = pg.PlotDataItem(
                    pen=pen,
                    connect="finite",  # a NaN breaks the line between sections
                )
                self.plots[plot_index].addItem(item)
                curves[key] = item
            self._curves.append(curves)
            scatter = pg.ScatterPlotItem(
                size=MARKER_SIZE,
                pen=pg.mkPen(colour, width=1),
                brush=pg.mkBrush(colour),
                hoverable=True,
                hoverSize=14,
                tip=_marker_tip,
            )
            scatter.setZValue(10)
            self.plots[0].addItem(scatter, ignoreBounds=True)  # placed by _place_markers
            self._markers.append(scatter)
            self._marker_seen.append(-1)
            self._bands.append(band_item(colour))  # added to the plot once it has a spread
        self.legend.set_arms([t.name for t in self.data.arms], self.colours)
        self._cuda = None
        self._update_memory_title()

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
        for band in self._bands:
            self.plots[0].removeItem(band)
        for plot, item in self._extras:
            plot.removeItem(item)
        self.legend.set_arms([], [])
        self.crosshair.follow(None, [], False)
        self._curves, self._markers, self._extras, self._bands = [], [], [], []
        self._seen, self._marker_seen, self._band_seen = {}, [], {}
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
                self._place_arm_markers(i)
                changed = True
            if index == 0 and self._band_seen.get(i) != trace.fastest_ms.version:
                self._band_seen[i] = trace.fastest_ms.version
                self._draw_band(i, x0, x1)
                changed = True
        if index == 2 and self.data.device is None:
            self._update_memory_title()
        if changed:
            self.last_redraw_s = time.perf_counter() - t0
        return changed

    def _draw_band(self, arm: int, x0: float, x1: float) -> None:
        trace = self.data.arms[arm]  # type: ignore[union-attr]
        if not trace.fastest_ms.n:
            return
        x, fastest = trace.fastest_ms.data()
        _, slowest = trace.slowest_ms.data()
        xs, low = visible_peaks(x, fastest, x0, x1)
        _, high = visible_peaks(x, slowest, x0, x1)
        band = self._bands[arm]
        if band.scene() is None:  # an empty band would pull the y range to 0
            self.plots[0].addItem(band)
        band.setPath(band_path(xs, low, high))
        if not self.legend.text().endswith("rank"):
            self.legend.set_arms([t.name for t in self.data.arms], self.colours, spread=True)

    def _place_arm_markers(self, arm: int) -> None:
        """Arm `arm`'s compile markers at its own height near the bottom of the step-time plot."""
        trace = self.data.arms[arm]  # type: ignore[union-attr]
        vb = self.plots[0].vb
        y0, y1 = vb.viewRange()[1]
        above_px = MARKER_SIZE * (0.8 + 1.2 * (arm % MARKER_ROWS))  # a row per arm, no overlap
        y = y0 + (y1 - y0) * above_px / max(vb.height(), 1.0)
        self._markers[arm].setData(
            x=[m.x for m in trace.markers],
            y=[y] * len(trace.markers),
            data=[m.text for m in trace.markers],
            symbol=["t1" if m.kind == "recompile" else "o" for m in trace.markers],
        )

    def _place_markers(self) -> None:
        """Keep each arm's markers at its height as the y range follows the data."""
        if self.data is None:
            return
        for arm, trace in enumerate(self.data.arms[: len(self._markers)]):
            if trace.markers:
                self._place_arm_markers(arm)


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
