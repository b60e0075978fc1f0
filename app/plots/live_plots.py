"""Live plots of step time, throughput (or a training script's loss, or its own time between
steps: the middle plot's choice, plot_choices.py) and memory, one colour per arm.

Plots never redraw per event: events fill `LiveData`'s numpy buffers, and a timer pulls from
them. Each tick redraws at most one of the three plots (round-robin, only a plot whose data
changed), so each plot still updates ~30 times a second but the GUI thread never paints all
three in one go; after an expensive tick the next one waits, so plotting takes at most about
a third of the GUI thread's time however slow painting gets (see `LivePlots._tick`).

Each curve gets only its visible part, peak-decimated to about two points per pixel
(`visible_peaks`); pens are 1 px wide, no antialiasing, no OpenGL. Axes, titles and the legend
are pixmap-cached (replaying their QPictures on every curve update was most of a frame), and the
y grid has major lines only (pyqtgraph draws each minor grid line at ~0.3 ms).

What a reader sees, and what each costs per redraw:

- the x axis (`x_axis.py`, chosen in the control row): each batch size from its first step
  (the default: the same x is the same step for every arm), wall-clock time, or every batch
  size in a row. The wheel zooms x only and a drag pans x only, within the data; "fit" shows
  it all again. A slice of the buffers: no cost.
- the step-time and throughput y ranges fit the visible points within their quartiles' far
  fences (`y_range.py`: quartiles of a fixed-size sample, extremes of the decimated points, so
  ~0.1 ms whatever the run's length), not their spikes; points beyond are clipped at the edge
  and marked with a triangle whose tooltip gives the real value. pyqtgraph's auto-range (which
  fits every point) is off for those two plots.
- smoothing (`smoothing.py`): an exponential moving average drawn over the raw curve, which
  stays faint; kept up to date incrementally, decimated like the raw one (a second
  `visible_peaks` per curve, only while smoothing is on).
- a log step-time axis; a legend (legend.py) whose entries hide and show an arm everywhere.
- phase lines with labels that never overlap (a label that would touch the one before is left
  out, at every zoom), compile markers near the bottom of the step-time plot (each arm at its
  own height) whose tooltip gives the compile's own duration and its share of the batch size's
  compile cost, and on the time axis a shaded span per compile as long as it took.
- while an arm compiles (or loads, or takes its first step) and has no steps to draw, a line at
  the top right of the step-time plot says so with its time running ("compiling inductor · bs
  16… 12 s"), redrawn at 4 Hz, and on the time axis a span grows at the right edge. Hovering
  never hides it: the crosshair's readout (readout.py) sits below it.

A distributed arm's rank spread is a band (band.py). Before any run the plots are replaced by a
hint of what to do.
"""

from __future__ import annotations

import html
import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QGraphicsItem,
    QLabel,
    QStackedLayout,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.theme import arm_qcolours, configure_pyqtgraph, muted_colour
from tcprof.app.plots import plot_choices
from tcprof.app.plots.band import band_item, band_path
from tcprof.app.plots.contention import ContendedShading
from tcprof.app.plots.controls import PlotControls
from tcprof.app.plots.decimation import sample, visible_peaks, visible_range
from tcprof.app.plots.legend import PlotLegend
from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.plot_choices import MIDDLE_TITLES, THROUGHPUT, middle_for, remember_middle
from tcprof.app.plots.readout import Crosshair, number_text
from tcprof.app.plots.series import Section
from tcprof.app.plots.smoothing import Smoothed
from tcprof.app.plots.x_axis import AXIS_TITLES, SECTION, WALL, XAxis
from tcprof.app.plots.y_range import clipped, robust_range, worth_moving

REDRAW_INTERVAL_MS = 33  # each plot's refresh period
TICK_MS = REDRAW_INTERVAL_MS // 3  # one plot per tick, round-robin
PLOT_DUTY = 0.35  # the most of the GUI thread's time the plots may take
WAIT_MS = 250  # the compile-wait line's redraw period
CACHE = QGraphicsItem.CacheMode.DeviceCoordinateCache
# (buffer name, plot index, pen style)
CURVES = (
    ("step_ms", 0, Qt.PenStyle.SolidLine),
    ("throughput", 1, Qt.PenStyle.SolidLine),
    ("loss", 1, Qt.PenStyle.SolidLine),
    ("own_ms", 1, Qt.PenStyle.SolidLine),
    ("rss_mb", 2, Qt.PenStyle.SolidLine),
    ("cuda_alloc_mb", 2, Qt.PenStyle.DashLine),
    ("cuda_reserved_mb", 2, Qt.PenStyle.DotLine),
)
PLOT_OF = {key: plot_index for key, plot_index, _ in CURVES}
PLOT_KEYS = tuple(tuple(k for k, p, _ in CURVES if p == index) for index in range(3))
SMOOTHED = ("step_ms", "throughput", "loss", "own_ms")  # the curves smoothing applies to
ROBUST = (0, 1)  # the plots whose y range ignores outliers (memory fits every point)
UNITS = {"step_ms": "ms", "throughput": "samples/s", "loss": "", "own_ms": "ms"}
# the memory plot is the process's RSS (compiler included), not Summary's tensor peak
TITLES = ("step time (ms)", "throughput (samples/s)", "process RSS (MB), compiler included")
CUDA_MEMORY_TITLE = "memory (MB): CUDA allocated - -, reserved ···, process RSS ─"
EMPTY_HINT = (
    "Choose a model file or a training script and press Run (Ctrl+R);\n"
    "step time, throughput (a script's loss) and memory stream here"
)
STALE_OPACITY = 0.35  # the curves of a run whose setup has since changed
RAW_ALPHA = 70  # of 255: the raw curve under a smoothed one
SPAN_ALPHA = 45  # of 255: a compile's span on the time axis
TITLE_HEIGHT = 18  # px
TICK_DENSITY = 0.6  # of pyqtgraph's default
MARKER_SIZE = 10  # px
CLIP_SIZE = 8  # px: the triangles of points beyond the y range
MARKER_ROWS = 4  # arms' marker rows above the plot's bottom edge (then repeating)
LABEL_GAP = 6  # px between two phase labels on a row
LABEL_ROWS = 2  # a label that touches the one before goes on the next row, or is not shown
DEFAULT_X = SECTION
MIN_X_SPAN = {SECTION: 5.0, WALL: 0.01}  # the deepest zoom (steps, or seconds); else 5 steps


def _marker_tip(x: float, y: float, data: object) -> str:
    return str(data)


def _pieces(
    s, x: np.ndarray, a: int, b: int, offset: float, drawn: tuple[np.ndarray, np.ndarray]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(a sample of the raw steps, the points drawn) of each section of points a..b-1 of a
    buffer: the y range fences each section apart, so that one arm's batch sizes (at different
    step times, side by side on the time axis) do not widen each other's fences."""
    _x, y = s.data()
    px, py = drawn
    bounds = [start for _key, start in s.marks if a < start < b]
    out = []
    for lo, hi in zip([a, *bounds], [*bounds, b], strict=True):
        if hi <= lo:
            continue
        k0 = int(np.searchsorted(px, x[lo] - offset, side="left"))
        k1 = int(np.searchsorted(px, x[hi - 1] - offset, side="right"))
        out.append((sample(y[lo:hi]), py[k0:k1]))
    return out


def _elapsed(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"


class LivePlots(QWidget):
    started = Signal()  # a run's or a session's data replaced what was shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        configure_pyqtgraph()
        self.view = _TimedLayoutWidget()
        self.view.setToolTip("")
        self.legend = PlotLegend()
        self.controls = PlotControls()
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
        self.legend.set_trailing(self.controls)  # one row: arms left, controls right
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.legend)
        layout.addWidget(self.pages, 1)
        self.plots: list[pg.PlotItem] = []
        for row, title in enumerate(TITLES):
            axes = {"left": StepTimeAxis(orientation="left")} if row == 0 else None
            plot = self.view.addPlot(row=row, col=0, axisItems=axes)
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
            plot.vb.sigRangeChangedManually.connect(self._zoomed)
            if row:
                plot.setXLink(self.plots[0])
            if row < len(TITLES) - 1:  # the x axis is shared: only the last plot shows it
                plot.hideAxis("bottom")
            self.plots.append(plot)
        self.view.ci.layout.setSpacing(2)
        self.view.ci.setContentsMargins(2, 0, 8, 2)
        # Axes (their tick labels and the grid, which the left axis draws across the whole
        # plot) and titles change only when a range or a run changes, yet Qt
        # repaints them whenever a curve under them moves: replaying their QPictures was
        # ~4 ms per axis, most of a frame. A pixmap cache makes those repaints a blit.
        for plot in self.plots:
            for item in (*(plot.getAxis(a) for a in ("left", "bottom")), plot.titleLabel):
                item.setCacheMode(CACHE)
        self.axis = XAxis(DEFAULT_X)
        self.controls.x_axis.setCurrentIndex(self.controls.x_axis.findData(DEFAULT_X))
        self.plots[-1].setLabel("bottom", AXIS_TITLES[self.axis.mode])
        self.smoothing = 0.0
        self.log_y = False
        self.hidden = self.legend.hidden  # arms the legend hid (one set, shared)
        self.crosshair = Crosshair(self.plots, self.view.scene())
        self.crosshair.axis = self.axis
        self.crosshair.hidden = self.hidden
        self.crosshair.reserved_top = self._reserved_top
        # The compile wait: a line at the top right of the step-time plot, in its pixels.
        background = QColor(pg.getConfigOption("background"))
        background.setAlpha(225)
        self.wait_text = pg.TextItem(
            anchor=(1, 0), color=pg.getConfigOption("foreground"), fill=pg.mkBrush(background)
        )
        self.wait_text.setParentItem(self.plots[0].vb)
        self.wait_text.setZValue(40)
        self.wait_text.hide()
        self.wait_timer = QTimer(self)
        self.wait_timer.setInterval(WAIT_MS)
        self.wait_timer.timeout.connect(self._show_waits)
        self.data: LiveData | None = None
        self.colours: list = []
        self.stale = False
        self._cuda: bool | None = None
        self._curves: list[dict[str, pg.PlotDataItem]] = []
        self._smooth: list[dict[str, pg.PlotDataItem]] = []
        self._smoothers: dict[tuple[int, str], Smoothed] = {}
        self._markers: list[pg.ScatterPlotItem] = []
        self._clips: list[dict[int, pg.ScatterPlotItem]] = []
        self._spans: list[list[pg.LinearRegionItem]] = []
        self._wait_spans: list[pg.LinearRegionItem] = []
        self.contention = ContendedShading(self.plots[0])
        self._bands: list = []
        self._band_seen: dict[int, int] = {}
        self._seen: dict[tuple[int, str], int] = {}
        self._marker_seen: list[int] = []
        self._drawn: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
        self._clip_seen: dict[tuple[int, int], tuple] = {}
        self._extras: list[tuple[pg.PlotItem, pg.InfiniteLine]] = []  # the phase lines
        self.labels: list[pg.TextItem] = []  # the phase lines' labels (step-time plot)
        self._guides: list[tuple[float, str]] = []
        self._guides_key: tuple | None = None
        self._user_x = False  # the user zoomed or panned: the x range no longer follows
        self._x_max = 0.0
        self._limits: tuple[float, float, float] | None = None
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
        self.plots[0].sigXRangeChanged.connect(self._place_labels)
        self.plots[0].sigYRangeChanged.connect(self._place_markers)
        self.plots[0].vb.sigResized.connect(self._place_markers)
        self.plots[0].vb.sigResized.connect(self._place_labels)
        self.legend.toggled.connect(self._arm_toggled)
        self.controls.x_axis.currentIndexChanged.connect(
            lambda _i: self.set_x_axis(self.controls.mode())
        )
        self.controls.section.currentIndexChanged.connect(
            lambda _i: self.show_section(self.controls.chosen_section())
        )
        self.controls.smoothing.valueChanged.connect(self.set_smoothing)
        self.controls.log_y.toggled.connect(self.set_log_y)
        self.controls.fit.clicked.connect(self.fit_x)
        self.middle = THROUGHPUT  # what the middle plot shows (plot_choices.py)
        self.controls.middle.currentIndexChanged.connect(
            lambda _i: self.set_middle(self.controls.middle_key(), remember=True)
        )
        plot_choices.restore(self)
        for signal in (
            self.controls.x_axis.currentIndexChanged,
            self.controls.smoothing.valueChanged,
            self.controls.log_y.toggled,
        ):
            signal.connect(lambda *_: plot_choices.remember(self))

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

    # -- the controls -------------------------------------------------------------------------
    def set_x_axis(self, mode: str) -> None:
        """Draw against another x (x_axis.MODES): everything is redrawn, the x range reset."""
        if mode == self.axis.mode:
            return
        self.axis.mode = mode
        if self.controls.mode() != mode:
            self.controls.x_axis.setCurrentIndex(self.controls.x_axis.findData(mode))
        self.controls.section.setVisible(mode == SECTION)
        self.plots[-1].setLabel("bottom", AXIS_TITLES[mode])
        self._axis_changed()

    def x_mode(self) -> str:
        return self.axis.mode

    def show_section(self, section: Section | None) -> None:
        """On "step in batch size": show this section (None: the one the run is in)."""
        if section == self.axis.chosen:
            return
        self.axis.chosen = section
        if self.axis.mode == SECTION:
            self._axis_changed()

    def _axis_changed(self) -> None:
        self._user_x = False
        self._x_max = 0.0
        self._limits = None
        self._guides_key = None
        self._marker_seen = [-1] * len(self._marker_seen)
        self.contention.invalidate()
        self._invalidate()
        for spans in self._spans:
            for span in spans:
                self.plots[0].removeItem(span)
            spans.clear()
        self.crosshair.hide()
        if self.data is not None:
            self._update_layout()
            self.refresh()
            self._show_waits()

    def set_smoothing(self, weight: float) -> None:
        """The EMA weight of step time and throughput (0: off)."""
        weight = float(weight)
        if weight == self.smoothing:
            return
        was_on = self.smoothing > 0
        self.smoothing = weight
        if self.controls.smoothing.value() != weight:
            self.controls.smoothing.setValue(weight)
        if was_on != (weight > 0):
            for i in range(len(self._curves)):
                self._pen_curves(i)
        self._invalidate()
        if self.data is not None:
            self.refresh()

    def set_log_y(self, log: bool) -> None:
        """A log step-time axis (on or off)."""
        if log == self.log_y:
            return
        self.log_y = log
        if self.controls.log_y.isChecked() != log:
            self.controls.log_y.setChecked(log)
        self.plots[0].setLogMode(y=log)
        self._invalidate()
        if self.data is not None:
            self.refresh()

    def fit_x(self) -> None:
        """The whole x range again (after a zoom or a pan)."""
        self._user_x = False
        self._x_max = 0.0
        self._follow_x()

    def _zoomed(self, _mask: object = None) -> None:
        """The user zoomed or panned: the x range stays theirs, unless it shows everything."""
        if self.data is None:
            return
        lo, hi = self.axis.extent(self.data)
        x0, x1 = self.plots[0].viewRange()[0]
        self._user_x = not (x0 <= lo and x1 >= hi)

    def _arm_toggled(self, arm: int, shown: bool) -> None:
        """The legend hid or showed an arm: its curves and markers in every plot follow."""
        for item in self._arm_items(arm):
            item.setVisible(shown)
        for key in list(self._seen):
            if key[0] == arm:
                del self._seen[key]
        self._band_seen.pop(arm, None)
        self._invalidate()  # the y ranges: without (or with) it
        if arm < len(self._marker_seen):
            self._marker_seen[arm] = -1
        if self.crosshair.step is not None:
            self.crosshair.show_at(self.crosshair.step)
        if self.data is not None:
            self.refresh()

    def _arm_items(self, arm: int) -> list:
        if arm >= len(self._curves):
            return []
        items = [*self._curves[arm].values(), *self._smooth[arm].values()]
        items += [self._markers[arm], *self._clips[arm].values(), self._bands[arm]]
        items += [*self._spans[arm], self._wait_spans[arm], *self.contention.items(arm)]
        return items

    def _keys(self, index: int) -> tuple[str, ...]:
        """The buffers plot `index` draws: the middle plot draws only its choice."""
        return (self.middle,) if index == 1 else PLOT_KEYS[index]

    def set_middle(self, key: str, remember: bool = False) -> None:
        """What the middle plot shows: throughput, or a script's loss or own time (those only
        for a script's run: a model file's steps carry neither)."""
        script = self.data is not None and self.data.script
        if key not in MIDDLE_TITLES or (key != THROUGHPUT and not script):
            key = THROUGHPUT
        if remember:
            remember_middle(script, key)
        self.controls.show_middle(key, script)
        if key == self.middle:
            return
        self.middle = key
        self.plots[1].setTitle(MIDDLE_TITLES[key], size="9pt")
        self.crosshair.middle = key
        for arm, curves in enumerate(self._curves):
            for other in PLOT_KEYS[1]:
                if other != key:
                    curves[other].setData([], [])
                    self._smooth[arm][other].setData([], [])
                    self._drawn.pop((arm, other), None)
        self._clip_seen = {k: v for k, v in self._clip_seen.items() if k[1] != 1}
        self._invalidate()
        if self.data is not None:
            self.refresh()

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
        self._user_x, self._x_max, self._limits, self._guides_key = False, 0.0, None, None
        for index, plot in enumerate(self.plots):
            if index in ROBUST:
                plot.disableAutoRange(axis="y")  # the percentile range is set by _fit_y
            else:
                plot.enableAutoRange(axis="y")
                plot.setAutoVisible(y=True)
        self._update_layout()
        self.set_middle(middle_for(data.script))
        self.timer.start()
        self.wait_timer.start()
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
            curves, smooth = {}, {}
            for key, plot_index, style in CURVES:
                pen = pg.mkPen(colour, width=1, style=style)
                item = pg.PlotDataItem(
                    pen=pen,
                    connect="finite",  # a NaN breaks the line between sections
                )
                self.plots[plot_index].addItem(item)
                curves[key] = item
                if key in SMOOTHED:
                    line = pg.PlotDataItem(pen=pen, connect="finite")
                    line.setZValue(2)  # over every raw curve
                    self.plots[plot_index].addItem(line)
                    smooth[key] = line
                    self._smoothers[(i, key)] = Smoothed()
            self._curves.append(curves)
            self._smooth.append(smooth)
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
            clips = {}
            for index in ROBUST:
                clip = pg.ScatterPlotItem(
                    size=CLIP_SIZE,
                    pen=pg.mkPen(colour, width=1),
                    brush=pg.mkBrush(colour),
                    hoverable=True,
                    hoverSize=12,
                    tip=self._clip_tip(i, index),
                )
                clip.setZValue(11)
                self.plots[index].addItem(clip, ignoreBounds=True)
                clips[index] = clip
            self._clips.append(clips)
            self._spans.append([])
            wait = self._span_item(colour, 0.0, 0.0)
            wait.hide()
            self._wait_spans.append(wait)
            self._bands.append(band_item(colour))  # added to the plot once it has a spread
            self._pen_curves(i)
            if i in self.hidden:
                for item in self._arm_items(i):
                    item.setVisible(False)
        self.legend.set_arms([t.name for t in self.data.arms], self.colours)
        self._cuda = None
        self._update_memory_title()

    def _pen_curves(self, arm: int) -> None:
        """Raw curves in full colour, or faint under their smoothed line while smoothing."""
        colour = QColor(self.colours[arm])
        if self.smoothing > 0:
            colour.setAlpha(RAW_ALPHA)
        for key in SMOOTHED:
            self._curves[arm][key].setPen(pg.mkPen(colour, width=1))
            if self.smoothing <= 0:
                self._smooth[arm][key].setData([], [])

    def _span_item(self, colour: QColor, t0: float, t1: float) -> pg.LinearRegionItem:
        fill = QColor(colour)
        fill.setAlpha(SPAN_ALPHA)
        edge = QColor(colour)
        edge.setAlpha(110)
        span = pg.LinearRegionItem(
            values=(t0, t1), movable=False, brush=pg.mkBrush(fill), pen=pg.mkPen(edge)
        )
        span.setZValue(-8)
        self.plots[0].addItem(span, ignoreBounds=True)
        return span

    def stop(self) -> None:
        """Stop the timers after one last redraw (the run ended): no wait goes on."""
        self.refresh()
        self.timer.stop()
        self.wait_timer.stop()
        self._hide_waits()

    def clear(self) -> None:
        self.timer.stop()
        self.wait_timer.stop()
        self._hide_waits()
        for curves, smooth in zip(self._curves, self._smooth, strict=True):
            for key, item in (*curves.items(), *smooth.items()):
                self.plots[PLOT_OF[key]].removeItem(item)
        for scatter in self._markers:
            self.plots[0].removeItem(scatter)
        for clips in self._clips:
            for index, clip in clips.items():
                self.plots[index].removeItem(clip)
        for spans in self._spans:
            for span in spans:
                self.plots[0].removeItem(span)
        for span in self._wait_spans:
            self.plots[0].removeItem(span)
        for band in self._bands:
            self.plots[0].removeItem(band)
        self.contention.clear()
        self._remove_guides()
        self.legend.set_arms([], [])
        self.crosshair.follow(None, [], False)
        self._curves, self._smooth, self._markers, self._bands = [], [], [], []
        self._clips, self._spans, self._wait_spans, self._smoothers = [], [], [], {}
        self._seen, self._marker_seen, self._band_seen, self._drawn = {}, [], {}, {}
        self._clip_seen = {}
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
        """The phase lines of the sections that began (or of the section shown), the sections
        to choose from, and the x range: it follows the data as it grows unless the user
        zoomed. Otherwise fixed: that spares an auto-range pass per frame."""
        data = self.data
        if data is None:
            return False
        key = (self.axis.mode, self.axis.section(data), data.sections_version)
        changed = False
        if key != self._guides_key:
            self._guides_key = key
            self.controls.set_sections(
                [(k, data.section_label(k)) for k in data.section_keys()], self.axis.chosen
            )
            guides = self.axis.guides(data)
            if guides != self._guides:
                self._draw_guides(guides)
            changed = True
        return self._follow_x() or changed

    def _follow_x(self) -> bool:
        """Widen the x range when the data went past it (not after the user zoomed), and keep
        zooms and pans within the data."""
        data = self.data
        if data is None:
            return False
        lo, hi = self.axis.extent(data)
        grow = not self._user_x and hi > self._x_max
        if grow:
            spare = 1.0 if self._x_max == 0.0 or self.axis.mode == SECTION else 1.1
            self._x_max = hi * spare
        top = max(hi, self._x_max)
        pad = 0.02 * (top - lo)
        limits = (lo - pad, top + pad, MIN_X_SPAN.get(self.axis.mode, 5.0))
        if limits != self._limits:  # before the range: a range past the old limits is clipped
            self._limits = limits
            for plot in self.plots:
                plot.vb.setLimits(xMin=limits[0], xMax=limits[1], minXRange=limits[2])
        if grow:
            self.plots[0].setXRange(lo, self._x_max, padding=0.01)
        return grow

    def _remove_guides(self) -> None:
        for plot, item in self._extras:
            plot.removeItem(item)
        for label in self.labels:
            label.setParentItem(None)
            if label.scene() is not None:
                label.scene().removeItem(label)
        self._extras, self.labels, self._guides = [], [], []

    def _draw_guides(self, guides: list[tuple[float, str]]) -> None:
        """A dashed line per guide in every plot, its label at the top of the step-time plot."""
        self._remove_guides()
        line_pen = pg.mkPen(muted_colour(), width=1, style=Qt.PenStyle.DashLine)
        for x, label in guides:
            for plot in self.plots:
                line = pg.InfiniteLine(pos=x, angle=90, pen=line_pen)
                plot.addItem(line, ignoreBounds=True)
                self._extras.append((plot, line))
            text = pg.TextItem(label, color=muted_colour(), anchor=(0, 0))
            text.setParentItem(self.plots[0].vb)  # placed in the view box's pixels
            text.setZValue(15)
            text.setCacheMode(CACHE)
            self.labels.append(text)
        self._guides = list(guides)
        self._place_labels()

    def _place_labels(self) -> None:
        """Each label just right of its line, on the first of two rows where it touches no
        label before it (nor the compile-wait line); one that fits on neither is hidden, so
        labels never overlap at any zoom."""
        if not self.labels:
            return
        vb = self.plots[0].vb
        left = vb.sceneBoundingRect().left()
        width = vb.width()
        blocked = None
        if self.wait_text.isVisible():
            blocked = self.wait_text.mapRectToParent(self.wait_text.boundingRect())
        height = self.labels[0].boundingRect().height()
        rows = [-1e9] * LABEL_ROWS  # the right edge of each row's last label
        placed = sorted(zip(self._guides, self.labels, strict=True), key=lambda g: g[0][0])
        for (x, _label), text in placed:
            px = vb.mapViewToScene(QPointF(x, 0)).x() - left + 3
            w = text.boundingRect().width()
            row = None
            if 0 <= px and px + w <= width:
                for r in range(LABEL_ROWS):
                    top = 1.0 + r * height
                    if px < rows[r] + LABEL_GAP:
                        continue
                    if (
                        blocked is not None
                        and px + w >= blocked.left() - LABEL_GAP
                        and top < blocked.bottom()
                    ):
                        continue
                    row = r
                    break
            text.setVisible(row is not None)
            if row is not None:
                text.setPos(px, 1.0 + row * height)
                rows[row] = px + w

    def _refresh_plot(self, index: int) -> bool:
        """setData once per curve of plot `index` whose buffer changed since it was last drawn,
        then (step time, throughput) the y range and the clipped points. Returns whether
        anything changed."""
        if self.data is None:
            return False
        t0 = time.perf_counter()
        changed = self._update_layout() if index == 0 else False
        self._follow_arms()
        x0, x1 = self.plots[0].viewRange()[0]
        drawn = False
        for i, trace in enumerate(self.data.arms):
            if i in self.hidden:
                continue
            series = trace.series()
            for key in self._keys(index):
                s = series[key]
                if self._seen.get((i, key)) == s.version or s.n == 0:
                    continue
                self._seen[(i, key)] = s.version
                self._draw_curve(i, key, s, x0, x1)
                drawn = True
            if index == 0 and self._marker_seen[i] != trace.markers_version:
                self._marker_seen[i] = trace.markers_version
                self._place_arm_markers(i)
                changed = True
            if index == 0 and self._band_seen.get(i) != trace.fastest_ms.version:
                self._band_seen[i] = trace.fastest_ms.version
                self._draw_band(i, x0, x1)
                changed = True
        if index == 0:
            changed |= self.contention.draw(self.data, self.axis, self.colours, self.hidden)
        if drawn and index in ROBUST:
            self._fit_y(index, x0, x1)
        if index == 2 and self.data.device is None:
            self._update_memory_title()
        changed |= drawn
        if changed:
            self.last_redraw_s = time.perf_counter() - t0
        return changed

    def _draw_curve(self, arm: int, key: str, s, x0: float, x1: float) -> None:
        """The visible part of one buffer on the current x axis, decimated; and its smoothed
        line, while smoothing is on."""
        x, i0, i1, offset = self.axis.span(self.data, s)  # type: ignore[arg-type]
        _, y = s.data()
        xs, ys = x[i0:i1], y[i0:i1]
        px, py = visible_peaks(xs, ys, x0 + offset, x1 + offset)
        if offset:
            px = px - offset
        self._curves[arm][key].setData(px, py)
        self._drawn[(arm, key)] = (px, py)
        if key in SMOOTHED and self.smoothing > 0:
            smooth = self._smoothers[(arm, key)].values(y, self.smoothing)[i0:i1]
            sx, sy = visible_peaks(xs, smooth, x0 + offset, x1 + offset)
            self._smooth[arm][key].setData(sx - offset if offset else sx, sy)

    def _fit_y(self, index: int, x0: float, x1: float) -> None:
        """The plot's y range: the points drawn for the shown arms, within the far fences of
        their visible steps (y_range.py); then the points beyond it, clipped at its edges and
        marked."""
        data = self.data
        assert data is not None
        log = self.log_y and index == 0
        empty = (np.empty(0), np.empty(0))
        shown = [i for i in range(len(data.arms)) if i not in self.hidden and i < len(self._clips)]
        curves = []
        for i in shown:
            for key in self._keys(index):
                s = data.arms[i].series()[key]
                x, i0, i1, offset = self.axis.span(data, s)
                j0, j1 = visible_range(x[i0:i1], x0 + offset, x1 + offset)
                curves += _pieces(s, x, i0 + j0, i0 + j1, offset, self._drawn.get((i, key), empty))
        vb = self.plots[index].vb
        new = robust_range(curves, log)
        if new is not None and worth_moving(tuple(vb.viewRange()[1]), new):
            vb.setYRange(*new, padding=0)
        lo, hi = vb.viewRange()[1]
        inset = (hi - lo) * (CLIP_SIZE * 0.7) / max(vb.height(), 1.0)
        for i in shown:
            parts = [
                clipped(*self._drawn.get((i, key), empty), lo, hi, log) for key in self._keys(index)
            ]
            cx, cy, up = (np.concatenate(column) for column in zip(*parts, strict=True))
            state = (cx.tobytes(), cy.tobytes(), lo, hi)
            if self._clip_seen.get((i, index)) == state:
                continue  # as drawn: a scatter's setData is not free
            self._clip_seen[(i, index)] = state
            scatter = self._clips[i][index]
            mixed = bool(up.any() and not up.all())
            scatter.setData(
                x=cx,
                y=np.where(up, hi - inset, lo + inset),
                symbol=np.where(up, "t1", "t").tolist() if mixed else ("t1" if up.any() else "t"),
                data=cy,  # the real values; the tooltip says them (_clip_tip)
            )

    def _clip_tip(self, arm: int, index: int):
        """The tooltip of a clipped point: the arm, its real value and where it is."""

        def tip(x: float, y: float, value: object) -> str:
            unit = UNITS[self._keys(index)[0]]
            name = self.data.arms[arm].name if self.data is not None else "?"
            lo, hi = self.plots[index].vb.viewRange()[1]
            edge = "top" if y > (lo + hi) / 2 else "bottom"
            return (
                f"{name}: {number_text(float(value))} {unit} at "  # type: ignore[arg-type]
                f"{self.axis.position_text(x)} (beyond the plot's {edge})"
            )

        return tip

    def _draw_band(self, arm: int, x0: float, x1: float) -> None:
        trace = self.data.arms[arm]  # type: ignore[union-attr]
        if not trace.fastest_ms.n:
            return
        x, i0, i1, offset = self.axis.span(self.data, trace.fastest_ms)  # type: ignore[arg-type]
        _, fastest = trace.fastest_ms.data()
        _, slowest = trace.slowest_ms.data()
        xs = x[i0:i1]
        bx, low = visible_peaks(xs, fastest[i0:i1], x0 + offset, x1 + offset)
        _, high = visible_peaks(xs, slowest[i0:i1], x0 + offset, x1 + offset)
        if self.log_y:
            with np.errstate(divide="ignore", invalid="ignore"):
                low, high = np.log10(low), np.log10(high)
        band = self._bands[arm]
        if band.scene() is None:  # an empty band would pull the y range to 0
            self.plots[0].addItem(band, ignoreBounds=True)
        band.setPath(band_path(bx - offset if offset else bx, low, high))
        if not self.legend.has_spread():
            self.legend.set_arms([t.name for t in self.data.arms], self.colours, spread=True)

    def _place_arm_markers(self, arm: int) -> None:
        """Arm `arm`'s compile markers at its own height near the bottom of the step-time plot;
        on the time axis, a span per compile as long as torch's compile timer."""
        trace = self.data.arms[arm]  # type: ignore[union-attr]
        vb = self.plots[0].vb
        y0, y1 = vb.viewRange()[1]
        above_px = MARKER_SIZE * (0.8 + 1.2 * (arm % MARKER_ROWS))  # a row per arm, no overlap
        y = y0 + (y1 - y0) * above_px / max(vb.height(), 1.0)
        placed = [
            (x, m)
            for m in trace.markers
            if (x := self.axis.marker_x(self.data, m)) is not None  # type: ignore[arg-type]
        ]
        self._markers[arm].setData(
            x=[x for x, _m in placed],
            y=[y] * len(placed),
            data=[m.text for _x, m in placed],
            symbol=["t1" if m.kind == "recompile" else "o" for _x, m in placed],
        )
        if self.axis.mode != WALL:
            return
        spans = self._spans[arm]
        timed = [m for _x, m in placed if m.t0 is not None and m.t1 is not None]
        while len(spans) > len(timed):
            self.plots[0].removeItem(spans.pop())
        for k, m in enumerate(timed):
            if k < len(spans):
                spans[k].setRegion((m.t0, m.t1))
            else:
                spans.append(self._span_item(self.colours[arm], m.t0, m.t1))  # type: ignore[arg-type]
            spans[k].setToolTip(m.text)
            spans[k].setVisible(arm not in self.hidden)

    def _place_markers(self) -> None:
        """Keep each arm's markers at its height as the y range follows the data."""
        if self.data is None:
            return
        for arm, trace in enumerate(self.data.arms[: len(self._markers)]):
            if trace.markers:
                self._place_arm_markers(arm)

    # -- the compile wait ---------------------------------------------------------------------
    def _show_waits(self) -> None:
        """The arms waiting on a compile (or a load, or a first step) and for how long, at the
        top right of the step-time plot; on the time axis a span grows to now."""
        data = self.data
        if data is None:
            return
        waits = data.waits()
        text = "  ·  ".join(f"{w.text}… {_elapsed(w.elapsed_s)}" for w in waits)
        if not text:
            self._hide_waits()
            return
        if text != self.wait_text.toPlainText():
            self.wait_text.setHtml(f"<b>{html.escape(text)}</b>")
        vb = self.plots[0].vb
        self.wait_text.setPos(vb.width() - 4, 1.0)
        if not self.wait_text.isVisible():
            self.wait_text.show()
            self._place_labels()
        waiting = {w.arm: w for w in waits}
        now = data.run_time()
        for arm, span in enumerate(self._wait_spans):
            w = waiting.get(arm)
            if self.axis.mode == WALL and w is not None and w.t0 is not None:
                span.setRegion((w.t0, max(now, w.t0)))
                span.setVisible(arm not in self.hidden)
            elif span.isVisible():
                span.hide()
        if self.axis.mode == WALL:
            self._follow_x()

    def _hide_waits(self) -> None:
        if self.wait_text.isVisible():
            self.wait_text.hide()
            self._place_labels()
        for span in self._wait_spans:
            span.hide()

    def _reserved_top(self, index: int) -> float:
        """What the crosshair's readout must stay under at the top of plot `index`."""
        if index != 0 or not self.wait_text.isVisible():
            return 0.0
        return self.wait_text.boundingRect().height() + 2.0


class StepTimeAxis(pg.AxisItem):
    """The step-time plot's y axis: on a log scale, plain numbers (0.05, 0.1, 2) rather than
    pyqtgraph's powers of ten, and ticks inside a range narrower than a decade (pyqtgraph's
    log ticks are only at 1..9 times a power of ten, so 0.058 to 0.18 ms had no label)."""

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # noqa: N802, N803 (Qt's)
        if maxVal - minVal >= 1.0:
            return super().logTickValues(minVal, maxVal, size, stdTicks)
        lo, hi = 10.0**minVal, 10.0**maxVal
        raw = (hi - lo) / max(2.0, size / 45.0)
        magnitude = 10.0 ** np.floor(np.log10(raw))
        step = magnitude * max(m for m in (1.0, 2.0, 5.0) if m * magnitude <= raw)
        values = np.arange(np.ceil(lo / step) * step, hi, step)
        return [(None, list(np.log10(values[values > 0])))]

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 (Qt's)
        return [f"{10.0**v * scale:.3g}" for v in values]


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
