"""One arm's plotted measures, fed step by step from its run events.

Applying an event is cheap: small `steps` events (a worker sends one per step at high rates)
are appended to plain lists, and turned into numpy in one go when the plots next read the
buffers (~1 us per event instead of ~50 us of numpy calls). A line breaks (a NaN point) where a
section begins and where an arm's steps skip (the discarded step before a timed block), so
blocks and phases are not joined.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tcprof.app.plots.marks import Contended, Marker
from tcprof.app.plots.series import Section, Series

SMALL_EVENT = 64  # steps events up to this many steps are buffered in lists


@dataclass
class ArmTrace:
    name: str
    eager: bool = False  # runs the uncompiled model (takes the palette's first colour)
    step_ms: Series = field(default_factory=Series)
    throughput: Series = field(default_factory=Series)
    rss_mb: Series = field(default_factory=Series)
    cuda_alloc_mb: Series = field(default_factory=Series)
    cuda_reserved_mb: Series = field(default_factory=Series)
    # A distributed arm's spread: the fastest and the slowest rank's time at the same steps
    # (step_ms holds the slowest; these hold only the steps whose event had ms_fastest).
    fastest_ms: Series = field(default_factory=Series)
    slowest_ms: Series = field(default_factory=Series)
    # A training script's steps: what backward was called on, and its own time between steps
    # (data loading, logging): the `loss` and `own_ms` of its steps events.
    loss: Series = field(default_factory=Series)
    own_ms: Series = field(default_factory=Series)
    markers: list[Marker] = field(default_factory=list)
    markers_version: int = 0
    contended: list[Contended] = field(default_factory=list)
    contended_version: int = 0
    # Each measured block's first step and when it began: (section, block) -> (step, t).
    _block_start: dict[tuple[Section, int], tuple[int, float | None]] = field(
        default_factory=dict, repr=False
    )
    section: Section | None = None  # the (round, batch size) its last steps were in
    next_start: int = 0  # the step after its last one (a later start is a skip: a line break)
    # What its worker is doing (a `phase` event): the phase, its batch size, when it began
    # (the clock's time, and the run's t when the event had one).
    phase: str | None = None
    phase_batch_size: int | None = None
    phase_since: float = 0.0
    phase_t: float | None = None
    # Small steps events not yet in step_ms / throughput: x, ms, batch size and time per step.
    _pending_x: list[int] = field(default_factory=list, repr=False)
    _pending_ms: list[float] = field(default_factory=list, repr=False)
    _pending_bs: list[float] = field(default_factory=list, repr=False)
    _pending_t: list[float] = field(default_factory=list, repr=False)
    _last_t: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        self.step_ms._before_read = self.flush
        self.throughput._before_read = self.flush

    def add_steps(
        self,
        x0: int,
        ms: list[float] | np.ndarray,
        batch_size: int | list[float],
        t: float | None = None,
    ) -> None:
        """Steps x0, x0+1, ... took `ms` milliseconds each; the last ended at t (s). Each
        consumed `batch_size` samples (a script's: a list, one per step)."""
        k = len(ms)
        per_step = batch_size if isinstance(batch_size, list) else [float(batch_size)] * k
        if k <= SMALL_EVENT and not isinstance(ms, np.ndarray):
            self._pending_x.extend(range(x0, x0 + k))
            self._pending_ms.extend(ms)
            self._pending_bs.extend(per_step)
            if t is None:
                self._pending_t.extend([self._last_t] * k)
            elif k == 1:
                self._pending_t.append(t)
            else:  # each step's end: t less the steps after it
                ends = []
                after = 0.0
                for value in reversed(ms):
                    ends.append(t - after / 1000.0)
                    after += value
                self._pending_t.extend(reversed(ends))
            if t is not None:
                self._last_t = t
            self.step_ms.version += 1  # readers see a change; the data follows on read
            self.throughput.version += 1
            return
        self.flush()
        ms_arr = np.asarray(ms, dtype=np.float64)
        if t is None:
            ts: np.ndarray | float = self._last_t
        else:
            ts = t - (np.cumsum(ms_arr[::-1])[::-1] - ms_arr) / 1000.0
            self._last_t = t
        self._extend(
            x0 + np.arange(k, dtype=np.float64), ms_arr, np.asarray(per_step, np.float64), ts
        )

    def add_gap(self, x: float) -> None:
        """A break in the step-time and throughput lines (NaN: the plots draw connect='finite'),
        so a section's or a block's first steps are not joined to the steps before."""
        self.flush()
        gap = np.array([float(x)])
        nan = np.array([np.nan])
        self.step_ms.extend(gap, nan, self._last_t, self.section)
        self.throughput.extend(gap, nan, self._last_t, self.section)
        for extra in (self.fastest_ms, self.slowest_ms, self.loss, self.own_ms):
            if extra.n:
                extra.extend(gap, nan, self._last_t, self.section)

    def add_script(
        self,
        x0: int,
        ms: list[float],
        loss: list[float | None] | None,
        own_ms: list[float | None] | None,
        t: float | None,
    ) -> None:
        """A script's steps x0, x0+1, ...: their loss and own time (None: not known), at the
        times add_steps gives the same steps."""
        k = len(ms)
        ends: np.ndarray | None = None
        if t is not None:
            ms_arr = np.asarray(ms, dtype=np.float64)
            ends = t - (np.cumsum(ms_arr[::-1])[::-1] - ms_arr) / 1000.0
        xs = x0 + np.arange(k, dtype=np.float64)
        for series, values in ((self.loss, loss), (self.own_ms, own_ms)):
            if values is not None and len(values) == k:
                ys = np.array([np.nan if v is None else float(v) for v in values])
                series.extend(xs, ys, ends, self.section)

    def add_spread(self, x0: int, slowest: list[float], fastest: list[float]) -> None:
        """The fastest and slowest rank's ms for steps x0, x0+1, ... (a distributed arm)."""
        self.flush()
        k = min(len(slowest), len(fastest))
        xs = x0 + np.arange(k, dtype=np.float64)
        n = self.step_ms.n
        ts = self.step_ms.times()[n - k : n] if n >= k else None  # those of the same steps
        self.fastest_ms.extend(xs, np.asarray(fastest[:k], dtype=np.float64), ts, self.section)
        self.slowest_ms.extend(xs, np.asarray(slowest[:k], dtype=np.float64), ts, self.section)

    def flush(self) -> None:
        """Fold pending small steps events into the numpy buffers."""
        if not self._pending_ms:
            return
        xs = np.array(self._pending_x, dtype=np.float64)
        ms = np.array(self._pending_ms, dtype=np.float64)
        bs = np.array(self._pending_bs, dtype=np.float64)
        ts = np.array(self._pending_t, dtype=np.float64)
        self._pending_x, self._pending_ms, self._pending_bs, self._pending_t = [], [], [], []
        self._extend(xs, ms, bs, ts)

    def _extend(
        self, xs: np.ndarray, ms: np.ndarray, bs: float | np.ndarray, ts: np.ndarray | float
    ) -> None:
        self.step_ms.extend(xs, ms, ts, self.section)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.throughput.extend(
                xs,
                np.where(ms > 0, bs * 1000.0 / np.maximum(ms, 1e-12), 0.0),
                ts,
                self.section,
            )

    def series(self) -> dict[str, Series]:
        return {
            "step_ms": self.step_ms,
            "throughput": self.throughput,
            "rss_mb": self.rss_mb,
            "cuda_alloc_mb": self.cuda_alloc_mb,
            "cuda_reserved_mb": self.cuda_reserved_mb,
            "loss": self.loss,
            "own_ms": self.own_ms,
        }
