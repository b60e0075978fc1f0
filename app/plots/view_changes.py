"""What a reader changes of the live plots, and what each change redraws: the x axis and the
section shown on "step in batch size", smoothing, a log step-time axis, fitting the x range
after a zoom, an arm hidden from the legend, and what the middle plot shows. `LivePlots`
(live_plots.py) builds the parts these act on and connects the control row to them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcprof.app.plots.arm_items import PLOT_KEYS
from tcprof.app.plots.plot_choices import MIDDLE_TITLES, THROUGHPUT, remember_middle
from tcprof.app.plots.series import Section
from tcprof.app.plots.x_axis import SECTION, axis_titles

if TYPE_CHECKING:
    import pyqtgraph as pg
    from PySide6.QtGui import QColor

    from tcprof.app.plots.arm_drawing import ArmDrawing
    from tcprof.app.plots.arm_items import ArmItems
    from tcprof.app.plots.controls import PlotControls
    from tcprof.app.plots.live_data import LiveData
    from tcprof.app.plots.readout import Crosshair
    from tcprof.app.plots.x_axis import XAxis
    from tcprof.app.plots.x_range import XRange


class ViewChanges:
    """The reader's changes to the view, as methods of the plots widget (`LivePlots`, which
    sets every attribute named here)."""

    plots: list[pg.PlotItem]
    data: LiveData | None
    axis: XAxis
    controls: PlotControls
    x_range: XRange
    drawing: ArmDrawing
    arm_items: ArmItems
    crosshair: Crosshair
    colours: list[QColor]
    smoothing: float
    log_y: bool
    middle: str
    _guides_key: tuple[object, ...] | None

    if TYPE_CHECKING:  # the widget's own, which these changes call

        def refresh(self) -> bool: ...
        def _update_layout(self) -> bool: ...
        def _follow_x(self) -> bool: ...
        def _show_waits(self) -> None: ...
        def _title_of(self, key: str) -> str: ...
        def _set_middle_title(self, title: str) -> None: ...

    def _invalidate(self) -> None:
        self.drawing.invalidate()

    def set_x_axis(self, mode: str) -> None:
        """Draw against another x (x_axis.MODES): everything is redrawn, the x range reset."""
        if mode == self.axis.mode:
            return
        self.axis.mode = mode
        if self.controls.mode() != mode:
            self.controls.x_axis.setCurrentIndex(self.controls.x_axis.findData(mode))
        self.controls.section.setVisible(mode == SECTION)
        self.plots[-1].setLabel("bottom", self._axis_title())
        self._axis_changed()

    def _axis_title(self) -> str:
        script = self.data.script_source if self.data is not None else None
        return axis_titles(script)[self.axis.mode]

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
        self.x_range.reset()
        self._guides_key = None
        self.drawing.replace_markers()
        self._invalidate()
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
            for i in range(len(self.arm_items)):
                self.arm_items.pen(i, self.colours[i], self.smoothing)
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
        self.x_range.fit()
        self._follow_x()

    def _zoomed(self, _mask: object = None) -> None:
        """The user zoomed or panned: the x range stays theirs, unless it shows everything."""
        if self.data is None:
            return
        self.x_range.zoomed(*self.axis.extent(self.data))

    def _arm_toggled(self, arm: int, shown: bool) -> None:
        """The legend hid or showed an arm: its curves and markers in every plot follow."""
        for item in self.drawing.arm_items(arm):
            item.setVisible(shown)
        self._invalidate()  # its curves, and the y ranges: without (or with) it
        self.drawing.replace_markers(arm)
        if self.crosshair.step is not None:
            self.crosshair.show_at(self.crosshair.step)
        if self.data is not None:
            self.refresh()

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
        self._set_middle_title(self._title_of(key))
        self.crosshair.middle = key
        self.arm_items.show_middle(key)
        self._invalidate()
        if self.data is not None:
            self.refresh()
