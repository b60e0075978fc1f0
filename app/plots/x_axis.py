"""The plots' x axis: which coordinate of LiveData's points is drawn, and where.

- "step in batch size" (SECTION, the default; a script's "step", or "step in NAME" for its
  sweep's values: `labels`): one (round, batch size) at a time, each arm's steps counted from
  that section's first (compiling) step, 0. The same x is the same step of the same phase for
  every arm: step 1 the first warm-up step, the measured ones after the warm-up. The section
  shown is the one the run is in (or one chosen).
- "wall-clock time (s)" (WALL): seconds since the run began, every section in the order the
  run went through them; arms take turns, and a compile shows as the span of time it took.
- "step, batch sizes in a row" (ROW): every section one after another, each starting where
  the longest arm's data of the one before ended: the whole run at a glance by step.

Everything here is numpy slicing over the buffers (no copy but the decimated points), so
changing the axis costs a redraw, no rebuild.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.marks import Contended, Marker
from tcprof.app.plots.series import Section, Series
from tcprof.profiler.protocol.event_text import script_sweep

SECTION = "section"
WALL = "wall"
ROW = "row"
MODES = (SECTION, WALL, ROW)
LABELS = {
    SECTION: "step in batch size",
    WALL: "wall-clock time (s)",
    ROW: "batch sizes in a row",
}
AXIS_TITLES = {
    SECTION: "step within the batch size (0: the first, compiling step)",
    WALL: "time since the run began (s)",
    ROW: "step (all batch sizes in a row)",
}
# A script's: its phases are its sweep's values, or with no sweep only its rounds ("step").
SCRIPT_LABELS = {SECTION: "step", WALL: LABELS[WALL], ROW: "rounds in a row"}
SCRIPT_AXIS_TITLES = {
    SECTION: "step (0: the first, compiling step)",
    WALL: AXIS_TITLES[WALL],
    ROW: "step (all rounds in a row)",
}
WALL_WITHIN_S = 1.0  # how long after a step (s) the readout still reads it
EMPTY = np.empty(0, dtype=np.float64)


def labels(script: Any = None) -> dict[str, str]:
    """The x-axis choices' names: a model file's, or a script's (its ScriptSource or dict):
    'step in batch_size' for a sweep, plain 'step' without one (it has no batch size)."""
    if script is None:
        return LABELS
    sweep = script_sweep(script)
    if not sweep:
        return SCRIPT_LABELS
    return {SECTION: f"step in {sweep}", WALL: LABELS[WALL], ROW: f"{sweep} values in a row"}


def axis_titles(script: Any = None) -> dict[str, str]:
    """The bottom axis's title for each choice, as `labels` names them."""
    if script is None:
        return AXIS_TITLES
    sweep = script_sweep(script)
    if not sweep:
        return SCRIPT_AXIS_TITLES
    return {
        SECTION: f"step within the {sweep} value (0: the first, compiling step)",
        WALL: AXIS_TITLES[WALL],
        ROW: f"step (all {sweep} values in a row)",
    }


@dataclass
class XAxis:
    mode: str = SECTION
    chosen: Section | None = None  # SECTION: the section chosen (None: the one the run is in)

    def section(self, data: LiveData) -> Section | None:
        """The section SECTION shows."""
        keys = data.section_keys()
        if self.chosen in keys:
            return self.chosen
        return data.current_section if data.current_section in keys else None

    def span(self, data: LiveData, series: Series) -> tuple[np.ndarray, int, int, float]:
        """(x, i0, i1, offset): the series' points i0..i1-1 are on this axis, at x - offset
        (x is the whole buffer's; it never decreases over i0..i1)."""
        if self.mode == WALL:
            if not data.has_times:
                return EMPTY, 0, 0, 0.0
            return series.times(), 0, series.n, 0.0
        x, _y = series.data()
        if self.mode == ROW:
            return x, 0, len(x), 0.0
        section = self.section(data)
        i0, i1 = series.section_range(section)
        return x, i0, i1, data.section_start(section)

    def slice(self, data: LiveData, series: Series) -> tuple[np.ndarray, np.ndarray, float]:
        """(x, y, offset): the series' points on this axis are (x - offset, y). Views."""
        x, i0, i1, offset = self.span(data, series)
        _x, y = series.data()
        return x[i0:i1], y[i0:i1], offset

    def extent(self, data: LiveData) -> tuple[float, float]:
        """The x range that holds everything there is to see on this axis."""
        if self.mode == WALL:
            waiting = any(w.t0 is not None for w in data.waits())
            end = data.run_time() if waiting else data.t_extent
            return 0.0, max(1.0, end)
        if self.mode == ROW:
            return 0.0, data.x_extent()
        return 0.0, data.section_width(self.section(data))

    def marker_x(self, data: LiveData, marker: Marker) -> float | None:
        """Where a compile marker goes on this axis (None: not on it)."""
        if self.mode == WALL:
            return marker.t0 if data.has_times else None
        if self.mode == ROW:
            return marker.x
        return marker.step if marker.section == self.section(data) else None

    def region(self, data: LiveData, block: Contended) -> tuple[float, float] | None:
        """Where a contended block's steps lie on this axis (None: not on it); half a step
        either side, so a block covers its points."""
        if self.mode == WALL:
            if block.t0 is None or block.t1 is None:
                return None
            return block.t0, block.t1
        if self.mode == ROW:
            return block.x0 - 0.5, block.x1 + 0.5
        if block.section != self.section(data):
            return None
        return block.step0 - 0.5, block.step1 + 0.5

    def guides(self, data: LiveData) -> list[tuple[float, str]]:
        """(x, label) of the vertical lines: where each section began, or (one section) where
        its warm-up and measured steps begin."""
        if self.mode == WALL:
            if not data.has_times:
                return []
            return [(t, data.section_label(key)) for t, key in data.wall_sections]
        if self.mode == ROW:
            return data.sections()
        if self.section(data) is None:
            return []
        lines = [(1.0, "warm-up")] if data.warmup else []
        return lines + [(1.0 + data.warmup, "measured")]

    def value_at(self, data: LiveData, arm: int, key: str, x: float, within: float) -> float | None:
        """An arm's value at x on this axis (the crosshair's readout): the last point at or
        before x, if it is no more than `within` steps before it (on the time axis: a second)."""
        xs, ys, offset = self.slice(data, data.arms[arm].series()[key])
        if self.mode == WALL and within < float("inf"):
            within = WALL_WITHIN_S
        target = x + offset
        i = int(np.searchsorted(xs, target, side="right")) - 1
        if i < 0 or target - xs[i] > within or not np.isfinite(ys[i]):
            return None
        return float(ys[i])

    def position_text(self, x: float) -> str:
        """The readout's first words: 'step 1,234' or '12.3 s'."""
        if self.mode == WALL:
            return f"{x:,.2f} s" if abs(x) < 100 else f"{x:,.1f} s"
        return f"step {round(x):,}"

    def snap(self, x: float) -> float:
        """Steps are whole; time is not."""
        return x if self.mode == WALL else float(round(x))
