"""The plots' choices that survive a restart, as a W&B or TensorBoard user expects of a
dashboard: the x axis, the smoothing weight and the log step-time axis. Read once when the
plots are made; written whenever one changes. A value the current version does not know (an
x-axis mode since renamed, a weight out of range) is ignored, never an error."""

from __future__ import annotations

from typing import Protocol

from tcprof.app.common.settings import Preferences
from tcprof.app.plots.smoothing import MAX_WEIGHT
from tcprof.app.plots.x_axis import MODES


class _Chooser(Protocol):
    smoothing: float
    log_y: bool

    def set_x_axis(self, mode: str) -> None: ...
    def set_smoothing(self, weight: float) -> None: ...
    def set_log_y(self, log: bool) -> None: ...
    def x_mode(self) -> str: ...


def restore(plots: _Chooser) -> None:
    saved = Preferences().plot_choices()
    mode = saved.get("x_axis")
    if isinstance(mode, str) and mode in MODES:
        plots.set_x_axis(mode)
    weight = saved.get("smoothing")
    if isinstance(weight, (int, float)) and not isinstance(weight, bool):
        if 0.0 <= weight <= MAX_WEIGHT:
            plots.set_smoothing(float(weight))
    log = saved.get("log_y")
    if isinstance(log, bool):
        plots.set_log_y(log)


def remember(plots: _Chooser) -> None:
    Preferences().set_plot_choices(
        {"x_axis": plots.x_mode(), "smoothing": plots.smoothing, "log_y": plots.log_y}
    )
