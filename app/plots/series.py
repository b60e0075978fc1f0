"""An append-only (x, y, t) series of one measure of one arm, in growable numpy buffers.

Each point is kept with three coordinates, so the plots can switch x axes without a copy
(x_axis.py):

- its place in "all batch sizes in a row": a run is rounds (replicates) of batch sizes; each
  (round, batch size) is a section that starts where the previous one's data ended, and at
  least span = 1 + warmup + steps after its start. Sections are laid out as they begin: a timed
  block may run more steps than asked for (to last its minimum time), so a section's width is
  known only once it is measured. A point's step within its section is this x less the
  section's start, and each buffer records where each section's points begin (`Series.marks`);
- its wall-clock time: the `t` the engine relays with every event (seconds since the run
  began). A `steps` event arrives at t after its last step, so each step's end is t less the
  steps after it. Times only grow: a late relay never moves a step back.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

INITIAL_CAPACITY = 4096

Section = tuple[int, int]  # (round, batch size)


class Series:
    """An append-only (x, y, t) series in doubling numpy buffers; `version` bumps on change.

    x is the point's place in "all batch sizes in a row", t its wall-clock time (s)."""

    def __init__(self, capacity: int = INITIAL_CAPACITY) -> None:
        self._x = np.empty(capacity, dtype=np.float64)
        self._y = np.empty(capacity, dtype=np.float64)
        self._t = np.empty(capacity, dtype=np.float64)
        self._n = 0
        self._last_t = 0.0
        self.version = 0
        self.marks: list[tuple[Section, int]] = []  # (section, index of its first point)
        self._before_read: Callable[[], None] | None = None  # folds pending data in

    @property
    def n(self) -> int:
        if self._before_read is not None:
            self._before_read()
        return self._n

    def extend(
        self,
        xs: np.ndarray,
        ys: np.ndarray,
        ts: np.ndarray | float | None = None,
        section: Section | None = None,
    ) -> None:
        k = len(xs)
        if k == 0:
            return
        need = self._n + k
        if need > len(self._x):
            cap = max(need, 2 * len(self._x))
            self._x = np.resize(self._x, cap)
            self._y = np.resize(self._y, cap)
            self._t = np.resize(self._t, cap)
        if section is not None and (not self.marks or self.marks[-1][0] != section):
            self.marks.append((section, self._n))
        self._x[self._n : need] = xs
        self._y[self._n : need] = ys
        t = self._t[self._n : need]
        t[:] = self._last_t if ts is None else ts
        np.maximum(t, self._last_t, out=t)  # times only grow
        np.maximum.accumulate(t, out=t)
        self._last_t = float(t[-1])
        self._n = need
        self.version += 1

    def append(
        self, x: float, y: float, t: float | None = None, section: Section | None = None
    ) -> None:
        self.extend(np.array([x], dtype=np.float64), np.array([y], dtype=np.float64), t, section)

    def data(self) -> tuple[np.ndarray, np.ndarray]:
        """Views (no copy) of the filled part."""
        n = self.n
        return self._x[:n], self._y[:n]

    def times(self) -> np.ndarray:
        """The points' wall-clock times (a view): never decreasing."""
        return self._t[: self.n]

    def section_range(self, section: Section | None) -> tuple[int, int]:
        """[i0, i1): the points of one section (an arm's points of a section are contiguous)."""
        n = self.n
        for k, (key, start) in enumerate(self.marks):
            if key == section:
                end = self.marks[k + 1][1] if k + 1 < len(self.marks) else n
                return start, end
        return 0, 0
