"""The plots' redraw pacing: one plot per tick, and no more than a share of the GUI thread.

Each tick redraws at most one of the three plots (round-robin, only a plot whose data
changed), so each plot still updates ~30 times a second but the GUI thread never paints all
three in one go. A tick's cost is its setData work plus the paint it causes (timed by the
view). After a tick costing c, the next waits until c / PLOT_DUTY has passed since it started:
with cheap paints every tick runs (each plot at ~30 Hz); with slow ones (a huge window, a slow
machine) the plots update less often instead of starving the event loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable

REDRAW_INTERVAL_MS = 33  # each plot's refresh period
TICK_MS = REDRAW_INTERVAL_MS // 3  # one plot per tick, round-robin
PLOT_DUTY = 0.35  # the most of the GUI thread's time the plots may take


class RedrawPacer:
    """Whose turn it is, what the last redraw cost, and how many ticks ran or were skipped."""

    def __init__(
        self, plots: int, refresh_plot: Callable[[int], bool], paint_s: Callable[[], float]
    ) -> None:
        self.plots = plots
        self.refresh_plot = refresh_plot  # redraws one plot; False if nothing had changed
        self.paint_s = paint_s  # the seconds painted since it was last asked
        self.ticks = 0
        self.skipped_ticks = 0
        self.next_plot = 0
        self.last_tick = 0.0
        self.last_cost = 0.0

    def reset(self) -> None:
        self.next_plot, self.last_tick, self.last_cost = 0, 0.0, 0.0

    def tick(self) -> None:
        """Redraw the next plot whose data changed, unless the last redraw was expensive."""
        now = time.perf_counter()
        # The paint the previous tick caused has happened by now (Qt paints before it next
        # runs timers); other paints (hover, resize) count too.
        self.last_cost += self.paint_s()
        if now < self.last_tick + self.last_cost / PLOT_DUTY:
            self.skipped_ticks += 1
            return
        for k in range(self.plots):
            index = (self.next_plot + k) % self.plots
            t0 = time.perf_counter()
            if self.refresh_plot(index):
                self.last_cost = time.perf_counter() - t0
                self.last_tick = now
                self.next_plot = (index + 1) % self.plots
                self.ticks += 1
                return
