"""The plots' choices that survive a restart, as a W&B or TensorBoard user expects of a
dashboard: the x axis, the smoothing weight, the log step-time axis, and what the middle plot
shows (throughput; for a training script's run also its loss or its own time between steps),
kept apart for scripts and model files: a script's run shows its loss until the user chooses
otherwise. Read when the plots are made (the middle plot's when a run starts); written
whenever one changes. A value the current version does not know (an
x-axis mode since renamed, a weight out of range) is ignored, never an error."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from tcprof.app.common.settings import Preferences
from tcprof.app.plots.smoothing import MAX_WEIGHT
from tcprof.app.plots.x_axis import MODES

THROUGHPUT, LOSS, OWN_MS = "throughput", "loss", "own_ms"
# What the middle plot can show: its title, and its name in the control row.
MIDDLE_TITLES = {
    THROUGHPUT: "throughput (samples/s)",
    LOSS: "loss (what the script called backward on)",
    OWN_MS: "the script's own time between steps (ms): data, logging, evaluation",
}


def throughput_title(unit: str) -> str:
    """The throughput plot's title in the run's unit: a script's tokens/s where its model is
    given token ids (live_data.py decides, as the reports do), samples/s otherwise."""
    return f"throughput ({unit}/s)"


MIDDLE_LABELS = {THROUGHPUT: "throughput", LOSS: "loss", OWN_MS: "own time"}
SCRIPT_ONLY = (LOSS, OWN_MS)  # a model file's steps carry neither


class _Chooser(Protocol):
    smoothing: float
    log_y: bool

    def set_x_axis(self, mode: str) -> None: ...
    def set_smoothing(self, weight: float) -> None: ...
    def set_log_y(self, log: bool) -> None: ...
    def x_mode(self) -> str: ...


def restore(plots: _Chooser) -> None:
    saved = Preferences().plot_choices()
    if saved.x_axis is not None and saved.x_axis in MODES:
        plots.set_x_axis(saved.x_axis)
    if saved.smoothing is not None and 0.0 <= saved.smoothing <= MAX_WEIGHT:
        plots.set_smoothing(float(saved.smoothing))
    if saved.log_y is not None:
        plots.set_log_y(saved.log_y)


def remember(plots: _Chooser) -> None:
    prefs = Preferences()
    chosen = replace(
        prefs.plot_choices(), x_axis=plots.x_mode(), smoothing=plots.smoothing, log_y=plots.log_y
    )
    prefs.set_plot_choices(chosen)


def middle_for(script: bool) -> str:
    """The middle plot's last choice for a script's run (default: its loss) or a model
    file's (throughput)."""
    choices = Preferences().plot_choices()
    saved = choices.middle_script if script else choices.middle_model
    if saved in MIDDLE_TITLES and (script or saved not in SCRIPT_ONLY):
        return str(saved)
    return LOSS if script else THROUGHPUT


def remember_middle(script: bool, key: str) -> None:
    prefs = Preferences()
    choices = prefs.plot_choices()
    if script:
        prefs.set_plot_choices(replace(choices, middle_script=key))
    else:
        prefs.set_plot_choices(replace(choices, middle_model=key))
