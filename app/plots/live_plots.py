"""Live plots of step time, throughput (or a training script's loss, or its own time between
steps: the middle plot's choice, plot_choices.py) and memory, one colour per arm.

Plots never redraw per event: events fill `LiveData`'s numpy buffers, and a timer pulls from
them, one plot per tick; after an expensive tick the next one waits, so plotting takes at most
about a third of the GUI thread's time however slow painting gets (redraw_pacing.py).

What a reader sees, each in its module: the plots' frame (plot_frame.py), each arm's items
(arm_items.py) drawn decimated from its buffers (arm_drawing.py), the x axis (x_axis.py, chosen
in the control row) and its range (x_range.py), y ranges that ignore spikes, clipped points
marked (y_range.py), smoothing (smoothing.py), a log step-time axis, a legend whose entries hide
and show an arm everywhere (legend.py), phase lines (phase_guides.py), compile markers with
their share of the compile cost, the compile wait (compile_wait.py, redrawn at 4 Hz), contended
blocks (contention.py) and a distributed arm's rank band (band.py); what a reader changes of the
view, and what each change redraws (view_changes.py). Before any run the plots are replaced by a
hint of what to do.
"""

from __future__ import annotations

import time

import pyqtgraph as pg
from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QVBoxLayout, QWidget

from tcprof.app.common.theme import arm_qcolours, configure_pyqtgraph
from tcprof.app.plots import plot_choices
from tcprof.app.plots.arm_drawing import ArmDrawing
from tcprof.app.plots.arm_items import ROBUST, ArmItems, ClipTip
from tcprof.app.plots.compile_wait import CompileWait
from tcprof.app.plots.contention import ContendedShading
from tcprof.app.plots.controls import PlotControls
from tcprof.app.plots.legend import PlotLegend
from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.loss_parity import loss_note
from tcprof.app.plots.phase_guides import PhaseGuides
from tcprof.app.plots.plot_choices import (
    LOSS,
    MIDDLE_TITLES,
    THROUGHPUT,
    middle_for,
    throughput_title,
)
from tcprof.app.plots.plot_frame import (
    CUDA_MEMORY_TITLE,
    TITLES,
    TimedLayoutWidget,
    build_plots,
    empty_hint,
    hint_over,
)
from tcprof.app.plots.readout import Crosshair, number_text
from tcprof.app.plots.redraw_pacing import TICK_MS, RedrawPacer
from tcprof.app.plots.view_changes import ViewChanges
from tcprof.app.plots.x_axis import AXIS_TITLES, SECTION, WALL, XAxis
from tcprof.app.plots.x_range import XRange

WAIT_MS = 250  # the compile-wait line's redraw period
UNITS = {"step_ms": "ms", "throughput": "samples/s", "loss": "", "own_ms": "ms"}
STALE_OPACITY = 0.35  # the curves of a run whose setup has since changed
DEFAULT_X = SECTION


class LivePlots(QWidget, ViewChanges):
    """The three plots, their legend and control row, redrawn from a run's buffers on a timer
    (the reader's changes to the view: view_changes.py)."""

    started = Signal()  # a run's or a session's data replaced what was shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        configure_pyqtgraph()
        self.view = TimedLayoutWidget()
        self.view.setToolTip("")
        self.legend = PlotLegend()
        self.controls = PlotControls()
        self.hint = empty_hint()
        self.pages = hint_over(self.view, self.hint)
        self.legend.set_trailing(self.controls)  # one row: arms left, controls right
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.legend)
        layout.addWidget(self.pages, 1)
        self.plots: list[pg.PlotItem] = build_plots(self.view, self._zoomed)
        self.axis = XAxis(DEFAULT_X)
        self.controls.x_axis.setCurrentIndex(self.controls.x_axis.findData(DEFAULT_X))
        self.plots[-1].setLabel("bottom", AXIS_TITLES[self.axis.mode])
        self.smoothing = 0.0
        self.log_y = False
        self.hidden = self.legend.hidden  # arms the legend hid (one set, shared)
        self.crosshair = Crosshair(self.plots, self.view.scene())
        self.crosshair.axis = self.axis
        self.crosshair.hidden = self.hidden
        # The compile wait: a line at the top right of the step-time plot, in its pixels.
        self.wait = CompileWait(self.plots[0].vb, self._place_labels)
        self.crosshair.reserved_top = self.wait.reserved_top
        self.wait_timer = QTimer(self)
        self.wait_timer.setInterval(WAIT_MS)
        self.wait_timer.timeout.connect(self._show_waits)
        self.data: LiveData | None = None
        self.colours: list[QColor] = []
        self.stale = False
        self._cuda: bool | None = None
        self.arm_items = ArmItems(self.plots)
        self.contention = ContendedShading(self.plots[0])
        self.drawing = ArmDrawing(self.arm_items, self.contention)
        self.guides = PhaseGuides(self.plots, self.wait.blocked)
        self._guides_key: tuple[object, ...] | None = None
        self.x_range = XRange(self.plots)
        self.last_redraw_s = 0.0  # the last refresh's setData work (not the paint)
        self.pacer = RedrawPacer(len(self.plots), self._refresh_plot, self.view.take_paint_s)
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
        self._middle_title = self.plots[1].titleLabel.text  # with the loss's agreement note
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
        self.pacer.reset()
        self.x_range.reset()
        self._guides_key = None
        for index, plot in enumerate(self.plots):
            if index in ROBUST:
                plot.disableAutoRange(axis="y")  # the percentile range is set by fit_y
            else:
                plot.enableAutoRange(axis="y")
                plot.setAutoVisible(y=True)
        self._update_layout()
        self.controls.set_script(data.script_source)  # a script's steps, not "bs 1"
        self.plots[-1].setLabel("bottom", self._axis_title())
        self.set_middle(middle_for(data.script))
        self._set_middle_title(self._title_of(self.middle))
        self.timer.start()
        self.wait_timer.start()
        self.started.emit()

    def _title_of(self, key: str) -> str:
        """The middle plot's title; throughput's in the run's unit (known by its first steps)."""
        if key == THROUGHPUT and self.data is not None:
            return throughput_title(self.data.work_unit)
        return MIDDLE_TITLES[key]

    def _set_middle_title(self, title: str) -> None:
        if title != self._middle_title:
            self._middle_title = title
            self.plots[1].setTitle(title, size="9pt")

    def _update_loss_title(self) -> None:
        """The loss plot's title says where the shown arms' losses agree: one curve then hides
        the other (loss_parity.py)."""
        assert self.data is not None
        shown = [i for i in range(len(self.data.arms)) if i not in self.hidden]
        note = loss_note(
            [self.data.arms[i].name for i in shown], [self.data.arms[i].loss for i in shown]
        )
        title = MIDDLE_TITLES[LOSS]
        self._set_middle_title(f"{title} · {note}" if note else title)

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
        if len(self.arm_items) == len(self.data.arms):
            return
        self.colours = arm_qcolours([t.eager for t in self.data.arms])
        self.drawing.add_arms(
            len(self.data.arms), self.colours, self.smoothing, self.hidden, self._clip_tip
        )
        self.legend.set_arms([t.name for t in self.data.arms], self.colours)
        self._cuda = None
        self._update_memory_title()

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
        self.arm_items.clear()
        self.contention.clear()
        self.guides.remove()
        self.legend.set_arms([], [])
        self.crosshair.follow(None, [], False)
        self.drawing.clear()
        self.data = None

    # -- drawing ------------------------------------------------------------------------------
    def _tick(self) -> None:
        """Redraw the next plot whose data changed, unless the last redraw was expensive."""
        if self.data is not None:
            self.pacer.tick()

    @property
    def ticks(self) -> int:
        """The ticks that redrew a plot."""
        return self.pacer.ticks

    @property
    def skipped_ticks(self) -> int:
        """The ticks left out: the redraws before them were expensive."""
        return self.pacer.skipped_ticks

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
            if guides != self.guides.guides:
                self.guides.draw(guides)
            changed = True
        return self._follow_x() or changed

    def _follow_x(self) -> bool:
        """Widen the x range when the data went past it (not after the user zoomed), and keep
        zooms and pans within the data."""
        if self.data is None:
            return False
        return self.x_range.follow(*self.axis.extent(self.data), self.axis.mode)

    def _place_labels(self) -> None:
        self.guides.place()

    def _refresh_plot(self, index: int) -> bool:
        """setData once per curve of plot `index` whose buffer changed since it was last drawn,
        then (step time, throughput) the y range and the clipped points. Returns whether
        anything changed."""
        data = self.data
        if data is None:
            return False
        t0 = time.perf_counter()
        changed = self._update_layout() if index == 0 else False
        self._follow_arms()
        keys = self._keys(index)
        colours, hidden = self.colours, self.hidden
        drew, drawn = self.drawing.draw(
            index, data, self.axis, colours, hidden, keys, self.smoothing, self.log_y, self._band
        )
        changed |= drew
        if index == 2 and data.device is None:
            self._update_memory_title()
        if index == 1 and (drew or drawn) and self.middle == LOSS:
            self._update_loss_title()
        if index == 1 and self.middle == THROUGHPUT:
            self._set_middle_title(self._title_of(THROUGHPUT))
        changed |= drawn
        if changed:
            self.last_redraw_s = time.perf_counter() - t0
        return changed

    def _clip_tip(self, arm: int, index: int) -> ClipTip:
        """The tooltip of a clipped point: the arm, its real value and where it is."""

        def tip(x: float, y: float, value: object) -> str:
            key = self._keys(index)[0]
            unit = UNITS[key]
            if key == THROUGHPUT and self.data is not None:
                unit = f"{self.data.work_unit}/s"
            name = self.data.arms[arm].name if self.data is not None else "?"
            lo, hi = self.plots[index].vb.viewRange()[1]
            edge = "top" if y > (lo + hi) / 2 else "bottom"
            real, count = value if isinstance(value, tuple) else (value, 1)
            text = (
                f"{name}: {number_text(float(real))} {unit} at "
                f"{self.axis.position_text(x)} (beyond the plot's {edge})"
            )
            if count > 1:  # one marker for the points beyond within its width
                text += f"; {count} points beyond here, this the furthest"
            return text

        return tip

    def _band(self) -> None:
        """A rank band was drawn: the legend says what it is."""
        if self.data is not None and not self.legend.has_spread():
            self.legend.set_arms([t.name for t in self.data.arms], self.colours, spread=True)

    def _place_markers(self) -> None:
        """Keep each arm's markers at its height as the y range follows the data."""
        if self.data is not None:
            self.drawing.place_markers(self.data, self.axis, self.colours, self.hidden)

    # -- the compile wait ---------------------------------------------------------------------
    def _show_waits(self) -> None:
        """The arms waiting on a compile (or a load, or a first step) and for how long; on the
        time axis, the x range follows their spans as they grow."""
        data = self.data
        if data is None:
            return
        shown = self.wait.show(data, self.axis.mode, self.arm_items.wait_spans, self.hidden)
        if shown and self.axis.mode == WALL:
            self._follow_x()

    def _hide_waits(self) -> None:
        self.wait.hide(self.arm_items.wait_spans)
