"""The plots' x range: it follows the data as it grows, until the user zooms or pans.

The wheel zooms x only and a drag pans x only, within the data; "fit" shows it all again. While
it follows, the range is set only when the data went past it, which spares pyqtgraph an
auto-range pass per frame.
"""

from __future__ import annotations

import pyqtgraph as pg

from tcprof.app.plots.x_axis import SECTION, WALL

MIN_X_SPAN = {SECTION: 5.0, WALL: 0.01}  # the deepest zoom (steps, or seconds); else 5 steps


class XRange:
    """The x range of the (x-linked) plots: whether the user took it over, and its limits."""

    def __init__(self, plots: list[pg.PlotItem]) -> None:
        self.plots = plots
        self.user = False  # the user zoomed or panned: the x range no longer follows
        self.x_max = 0.0
        self.limits: tuple[float, float, float] | None = None

    def reset(self) -> None:
        """Follow the data again from scratch (a new run, another x axis)."""
        self.user, self.x_max, self.limits = False, 0.0, None

    def fit(self) -> None:
        """Follow the data again: the next `follow` shows all of it."""
        self.user = False
        self.x_max = 0.0

    def follow(self, lo: float, hi: float, mode: str) -> bool:
        """Widen the x range when the data (lo..hi) went past it (not after the user zoomed),
        and keep zooms and pans within the data. True if the range grew."""
        grow = not self.user and hi > self.x_max
        if grow:
            spare = 1.0 if self.x_max == 0.0 or mode == SECTION else 1.1
            self.x_max = hi * spare
        top = max(hi, self.x_max)
        pad = 0.02 * (top - lo)
        limits = (lo - pad, top + pad, MIN_X_SPAN.get(mode, 5.0))
        if limits != self.limits:  # before the range: a range past the old limits is clipped
            self.limits = limits
            for plot in self.plots:
                plot.vb.setLimits(xMin=limits[0], xMax=limits[1], minXRange=limits[2])
        if grow:
            self.plots[0].setXRange(lo, self.x_max, padding=0.01)
        return grow

    def zoomed(self, lo: float, hi: float) -> None:
        """The user zoomed or panned: the range stays theirs, unless it shows all of lo..hi."""
        x0, x1 = self.plots[0].viewRange()[0]
        self.user = not (x0 <= lo and x1 >= hi)
