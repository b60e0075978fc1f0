"""The numbers behind the live plots: growable numpy buffers per arm, fed from run events.

Kept free of Qt so it is cheap to test and so the plots can pull from it on a timer instead of
redrawing per event. Only the GUI thread touches it (RunController applies drained events, the
plots read), so it needs no lock. Applying an event is cheap: small `steps` events (a worker
sends one per step at high rates) are appended to plain lists, and turned into numpy in one
go when the plots next read the buffers (~1 us per event instead of ~50 us of numpy calls).

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

A line breaks (a NaN point) where a section begins and where an arm's steps skip (the discarded
step before a timed block), so blocks and phases are not joined. Events of the untimed accuracy
pass are not plotted. Compiles become markers (`Marker`: where, how long, and the text shown on
hover); `phase` events say which arm waits on a compile (`waits`). A timed block that other
processes slowed (`block_done` with `contended`) is kept as a `Contended` span, so the plots can
shade the steps whose times a neighbour inflated.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tcprof.profiler.protocol.compile_terms import (
    COMPILE_COST,
    COMPILE_TIMER,
    compile_figure,
    frame_label,
    seconds_text,
)
from tcprof.profiler.report.palette import is_eager

INITIAL_CAPACITY = 4096
SMALL_EVENT = 64  # steps events up to this many steps are buffered in lists
# Phases during which an arm shows nothing on the plots (no step data yet): their time is shown.
WAIT_PHASES = {
    "loading": "loading",
    "compiling": "compiling",
    "first_step": "first step of",
}
SAME_EMISSION_S = 0.05  # compile events this close together were sent after the same step

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


@dataclass
class Marker:
    """A compile or recompile moment: where it is, how long it took, and the text on hover."""

    x: float  # in "all batch sizes in a row"
    kind: str  # first | recompile
    text: str
    section: Section | None = None
    step: float = 0.0  # within its section
    t0: float | None = None  # wall-clock span of torch's compile timer (s)
    t1: float | None = None
    seconds: float | None = None
    timer: bool = False  # `seconds` is torch's compile timer (a worker's compile event)
    sent: float | None = None  # the run's time its event was sent (s)
    fields: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Contended:
    """A timed block during which the rest of the machine was busy (its steps read slow)."""

    section: Section
    step0: int  # its first and last step, within its section
    step1: int
    x0: float  # the same, in "all batch sizes in a row"
    x1: float
    t0: float | None  # the run's time its first step began and its last ended (s)
    t1: float | None
    busy_elsewhere: float  # cores the rest of the machine kept busy, on average

    @property
    def text(self) -> str:
        return (
            f"contended block (steps {self.step0:,}–{self.step1:,}): other processes kept "
            f"{self.busy_elsewhere:.1f} cores busy meanwhile, so these steps may read slow"
        )


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
    _pending_bs: list[int] = field(default_factory=list, repr=False)
    _pending_t: list[float] = field(default_factory=list, repr=False)
    _last_t: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        self.step_ms._before_read = self.flush
        self.throughput._before_read = self.flush

    def add_steps(
        self, x0: int, ms: list[float] | np.ndarray, batch_size: int, t: float | None = None
    ) -> None:
        """Steps x0, x0+1, ... took `ms` milliseconds each; the last ended at t (s)."""
        k = len(ms)
        if k <= SMALL_EVENT and not isinstance(ms, np.ndarray):
            self._pending_x.extend(range(x0, x0 + k))
            self._pending_ms.extend(ms)
            self._pending_bs.extend([batch_size] * k)
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
        self._extend(x0 + np.arange(k, dtype=np.float64), ms_arr, float(batch_size), ts)

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

    def add_script(self, x0: int, ms: list[float], event: dict[str, Any], t: float | None) -> None:
        """A script's steps x0, x0+1, ...: their loss and own time (None: not known), at the
        times add_steps gives the same steps."""
        k = len(ms)
        ends: np.ndarray | None = None
        if t is not None:
            ms_arr = np.asarray(ms, dtype=np.float64)
            ends = t - (np.cumsum(ms_arr[::-1])[::-1] - ms_arr) / 1000.0
        xs = x0 + np.arange(k, dtype=np.float64)
        for key in ("loss", "own_ms"):
            values = event.get(key)
            if isinstance(values, list) and len(values) == k:
                ys = np.array([np.nan if v is None else float(v) for v in values])
                getattr(self, key).extend(xs, ys, ends, self.section)

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


@dataclass
class Wait:
    """An arm waiting in a phase that plots nothing yet (a compile): since when, doing what."""

    arm: int
    text: str  # "compiling inductor · bs 16"
    elapsed_s: float
    t0: float | None  # the run's time it began (s), when its event had one


class LiveData:
    """Folds `steps`, `memory`, `compile` and `phase` events of one run into plottable
    buffers."""

    def __init__(
        self,
        arm_names: list[str],
        batch_sizes: list[int],
        warmup: int,
        steps: int,
        replicates: int = 1,
        device: str | None = None,
        eager: list[bool] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        flags = eager if eager is not None else [is_eager(n) for n in arm_names]
        self.arms = [ArmTrace(n, eager=e) for n, e in zip(arm_names, flags, strict=False)]
        self.device = device  # what the memory plot's title names (None: decided by the data)
        self.batch_sizes = list(batch_sizes)
        self.warmup = warmup
        self.span = 1 + warmup + steps
        self.replicates = max(1, replicates)
        self.points = 0
        self.clock = clock
        self._sections: list[tuple[int, int, int]] = []  # (x, replicate, batch size)
        self._section_x: dict[Section, int] = {}
        self._section_reach: dict[Section, int] = {}  # one past its largest step with data
        self._extent = 0  # one past the largest x with data
        self.sections_version = 0
        self.current_section: Section | None = None  # that of the last event with one
        # Wall-clock time: whether any event had a `t`, the largest seen, and when it came.
        self.has_times = False
        self.t_extent = 0.0
        self._t_seen_at: float | None = None
        self.wall_sections: list[tuple[float, Section]] = []  # (t, section) as the run moved
        # The compile cost of each (arm, batch size), once a summary says it (round 1's).
        self.compile_costs: dict[tuple[int, int], float] = {}
        self.script = False  # a training script's run: its steps carry their loss

    @classmethod
    def from_config(cls, config: Any) -> LiveData:
        data = cls(
            [a.name for a in config.run_arms],
            list(config.batch_sizes),
            config.warmup,
            config.steps,
            config.replicates,
            device=config.device,
            eager=[is_eager(a.backend) for a in config.run_arms],
        )
        data.script = getattr(config, "script", None) is not None
        return data

    @classmethod
    def from_session(cls, session: dict[str, Any], events: list[dict[str, Any]]) -> LiveData:
        """The buffers of a saved session, filled from its events as a live run fills them."""
        config = session.get("config") or {}
        arms = session.get("arms") or []
        device = config.get("device")
        data = cls(
            [str(a.get("name")) for a in arms],
            list(config.get("batch_sizes") or []),
            int(config.get("warmup") or 0),
            int(config.get("steps") or 0),
            int(config.get("replicates") or 1),
            device=device if isinstance(device, str) else None,
            eager=[is_eager(str(a.get("backend") or a.get("name"))) for a in arms],
        )
        data.script = isinstance(config.get("script"), dict)
        for event in events:
            data.apply(event)
        data.set_compile_costs(session)
        return data

    def uses_cuda(self) -> bool:
        """Whether the memory plot shows CUDA memory: the run's device, or (a session whose
        config does not say) CUDA figures in its data."""
        if self.device is not None:
            return self.device.startswith("cuda")
        return any(t.cuda_alloc_mb.n or t.cuda_reserved_mb.n for t in self.arms)

    def value_at(self, arm: int, key: str, x: float, within: float) -> float | None:
        """Arm `arm`'s `key` series at step x: the last point at or before x, if it is no more
        than `within` steps before (the crosshair's readout)."""
        xs, ys = self.arms[arm].series()[key].data()
        i = int(np.searchsorted(xs, x, side="right")) - 1
        if i < 0 or x - xs[i] > within or not np.isfinite(ys[i]):
            return None
        return float(ys[i])

    def boundaries(self) -> list[tuple[float, int]]:
        """(x, batch size) where each section (a batch size in a round) starts."""
        return [(float(x), bs) for x, _rep, bs in self._sections]

    def section_label(self, section: Section) -> str:
        """'bs=32', with the round when there are several."""
        rep, bs = section
        return f"r{rep + 1} bs={bs}" if self.replicates > 1 else f"bs={bs}"

    def sections(self) -> list[tuple[float, str]]:
        """(x, label) of each section: 'bs=32', with the round when there are several."""
        return [(float(x), self.section_label((rep, bs))) for x, rep, bs in self._sections]

    def section_keys(self) -> list[Section]:
        """The sections in the order they began."""
        return [(rep, bs) for _x, rep, bs in self._sections]

    def section_start(self, section: Section | None) -> float:
        """Where a section starts in "all batch sizes in a row"."""
        return float(self._section_x.get(section, 0)) if section is not None else 0.0

    def section_width(self, section: Section | None) -> float:
        """The steps a section spans: its planned span, or more if its data went further."""
        reach = self._section_reach.get(section, 0) if section is not None else 0
        return float(max(self.span, reach))

    def x_extent(self) -> float:
        """The x range to show: the planned sections, or further if the data went further."""
        planned = self.span * max(1, len(self.batch_sizes)) * self.replicates
        return max(float(planned), self._extent)

    def run_time(self) -> float:
        """The run's time now (s): the latest event's t, plus the time since it came."""
        if self._t_seen_at is None:
            return self.t_extent
        return self.t_extent + max(0.0, self.clock() - self._t_seen_at)

    def waits(self) -> list[Wait]:
        """The arms in a phase that draws nothing yet (loading, compiling, a first step)."""
        now = self.clock()
        out = []
        for i, trace in enumerate(self.arms):
            verb = WAIT_PHASES.get(str(trace.phase))
            if verb is None:
                continue
            where = f" · bs {trace.phase_batch_size}" if trace.phase_batch_size else ""
            out.append(
                Wait(i, f"{verb} {trace.name}{where}", now - trace.phase_since, trace.phase_t)
            )
        return out

    def set_compile_costs(self, session: dict[str, Any]) -> None:
        """Each arm and batch size's compile cost from a session summary (session.json's dict),
        so that compile markers can say their share of it."""
        costs = {}
        for i, arm in enumerate(session.get("arms") or []):
            for row in arm.get("results") or []:
                cost = compile_figure(row)
                if cost is not None and cost > 0 and isinstance(row.get("batch_size"), int):
                    costs[(i, row["batch_size"])] = cost
        if costs == self.compile_costs:
            return
        self.compile_costs = costs
        for i, trace in enumerate(self.arms):
            for marker in trace.markers:
                marker.text = self._marker_text(i, marker)
            trace.markers_version += 1

    def _offset(self, event: dict[str, Any]) -> tuple[int, Section] | None:
        """Where the event's section starts in "all batch sizes in a row", and the section (a
        section is laid out when its first event comes)."""
        key = self._section_of(event)
        if key is None:
            return None
        x = self._section_x.get(key)
        if x is None:
            last = self._sections[-1][0] if self._sections else -self.span
            x = max(self._extent, last + self.span)
            self._section_x[key] = x
            self._sections.append((x, key[0], key[1]))
            self.sections_version += 1
        if self.current_section != key:
            self.current_section = key
            self.sections_version += 1
        t = event.get("t")
        if isinstance(t, (int, float)) and (
            not self.wall_sections or self.wall_sections[-1][1] != key
        ):
            self.wall_sections.append((float(t), key))
            self.sections_version += 1
        return x, key

    def _section_of(self, event: dict[str, Any]) -> Section | None:
        rep = event.get("replicate")
        rep = 0 if rep is None else rep
        bs = event.get("batch_size")
        if not isinstance(rep, int) or bs not in self.batch_sizes:
            return None  # the untimed accuracy pass, or an unknown batch size
        return (rep, bs)

    def _reach(self, x: int, section: Section, step: int) -> None:
        if x + 1 > self._extent:
            self._extent = x + 1
        if step + 1 > self._section_reach.get(section, 0):
            self._section_reach[section] = step + 1

    def _trace(self, event: dict[str, Any]) -> ArmTrace | None:
        idx = event.get("arm")
        if isinstance(idx, int) and 0 <= idx < len(self.arms):
            return self.arms[idx]
        return None

    def _time(self, event: dict[str, Any]) -> float | None:
        t = event.get("t")
        if not isinstance(t, (int, float)):
            return None
        self.has_times = True
        if t >= self.t_extent:
            self.t_extent = float(t)
            self._t_seen_at = self.clock()
        return float(t)

    def apply(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "arms_added":  # --apply-advice: the fixed arms join the plots
            self.arms += [
                ArmTrace(
                    str(a.get("label") or a.get("backend")),
                    eager=is_eager(str(a.get("backend"))),
                )
                for a in event.get("arms") or []
            ]
            return
        if kind == "summary":  # the application's live summary: compile costs
            session = event.get("session")
            if isinstance(session, dict):
                self.set_compile_costs(session)
            return
        if kind not in (
            "steps",
            "memory",
            "compile",
            "phase",
            "first_step",
            "worker_exit",
            "block_done",
        ):
            return
        trace = self._trace(event)
        if trace is None:
            return
        if kind in ("phase", "first_step", "worker_exit"):
            self._on_phase(trace, event)
            return
        placed = self._offset(event)
        if placed is None:
            return
        offset, section = placed
        t = self._time(event)
        if kind == "steps":
            ms = event.get("ms")
            if ms is None or len(ms) == 0:
                return
            start = int(event.get("start") or 0)
            x0 = offset + start
            if trace.section != section:
                if trace.section is not None:  # the break ends the section before
                    trace.add_gap(x0 - 0.5)
                trace.section = section
            elif start > trace.next_start:  # a skipped step: the next block or phase
                trace.add_gap(x0 - 0.5)
            trace.next_start = start + len(ms)
            if trace.phase in WAIT_PHASES:
                trace.phase = "steps"
            block = event.get("block")
            if isinstance(block, int) and (section, block) not in trace._block_start:
                began = None if t is None else t - float(np.sum(ms)) / 1000.0
                trace._block_start[(section, block)] = (start, began)
            trace.add_steps(x0, ms, event["batch_size"], t)
            if "loss" in event or "own_ms" in event:
                trace.add_script(x0, list(ms), event, t)
            fastest = event.get("ms_fastest")
            if isinstance(fastest, list) and fastest:
                trace.add_spread(x0, list(ms), fastest)
            self.points += len(ms)
            self._reach(x0 + len(ms) - 1, section, start + len(ms) - 1)
        elif kind == "memory":
            step = int(event.get("step") or 0)
            x = float(offset + step)
            for key in ("rss_mb", "cuda_alloc_mb", "cuda_reserved_mb"):
                value = event.get(key)
                if value is not None:
                    getattr(trace, key).append(x, float(value), t, section)
            self._reach(int(x), section, step)
        elif kind == "block_done":
            self._on_block_done(trace, event, offset, section, t)
        else:
            self._on_compile(trace, event, offset, section, t)

    def _on_block_done(
        self,
        trace: ArmTrace,
        event: dict[str, Any],
        offset: int,
        section: Section,
        t: float | None,
    ) -> None:
        """A contended block becomes a span over its steps (from its first steps event)."""
        if event.get("contended") is not True:
            return
        steps = int(event.get("steps") or 0)
        block = event.get("block")
        first = trace._block_start.get((section, block)) if isinstance(block, int) else None
        step1 = trace.next_start - 1 if trace.section == section else None
        if first is None or step1 is None or steps <= 0:
            return  # its steps never came (a stopped run): nothing to shade
        step0, t0 = first
        trace.contended.append(
            Contended(
                section=section,
                step0=step0,
                step1=max(step0, step1),
                x0=float(offset + step0),
                x1=float(offset + max(step0, step1)),
                t0=t0,
                t1=t,
                busy_elsewhere=float(event.get("busy_elsewhere") or 0.0),
            )
        )
        trace.contended_version += 1

    def _on_phase(self, trace: ArmTrace, event: dict[str, Any]) -> None:
        kind = event.get("type")
        rep = event.get("replicate")
        if rep is not None and not isinstance(rep, int):
            return  # the untimed accuracy pass
        t = self._time(event)
        if kind == "phase":
            trace.phase = str(event.get("phase"))
            bs = event.get("batch_size")
            trace.phase_batch_size = bs if isinstance(bs, int) else None
            trace.phase_since = self.clock()
            trace.phase_t = t
        else:  # its first step came, or its process ended: no longer waiting
            trace.phase = "first_step_done" if kind == "first_step" else None

    def _on_compile(
        self,
        trace: ArmTrace,
        event: dict[str, Any],
        offset: int,
        section: Section,
        t: float | None,
    ) -> None:
        arm = self.arms.index(trace)
        seconds = event.get("seconds")
        seconds = float(seconds) if isinstance(seconds, (int, float)) else None
        step = int(event.get("step") or 0)
        marker = Marker(
            x=float(offset + step),
            kind=str(event.get("kind") or "first"),
            text="",
            section=section,
            step=float(step),
            seconds=seconds,
            timer="compile_id" in event or event.get("timer") is True,
            fields={
                k: event.get(k)
                for k in ("frame", "reason", "backward_s", "fail_type", "fail_reason", "cost")
                if event.get(k) is not None
            },
        )
        if t is not None and seconds is not None:
            # torch's timer ended before the event was sent; compiles sent after the same step
            # ran one after another: each earlier one ends where the next began.
            group = []
            for other in reversed(trace.markers):
                if other.t1 is None or other.section != section or other.step != step:
                    break
                if other.sent is None or abs(other.sent - t) > SAME_EMISSION_S:
                    break
                group.append(other)
            end = group[0].sent if group else t
            assert end is not None
            for other in group:
                other.t0 = (other.t0 or 0.0) - seconds
                other.t1 = (other.t1 or 0.0) - seconds
            marker.t0, marker.t1, marker.sent = end - seconds, end, end
        marker.text = self._marker_text(arm, marker)
        trace.markers.append(marker)
        trace.markers_version += 1

    def _marker_text(self, arm: int, marker: Marker) -> str:
        """What hovering a compile marker says: the arm, batch size and frame, the compile's own
        duration (torch's compile timer) and its share of the batch size's compile cost when a
        summary has given that cost, and why it compiled."""
        trace = self.arms[arm]
        rep, bs = marker.section or (0, 0)
        label = "compile" if marker.kind == "first" else "recompile"
        frame = marker.fields.get("frame")
        where = f" in {frame_label(frame)}" if frame else ""
        head = f"{trace.name} · bs {bs} · {label}{where}"
        if self.replicates > 1:
            head += f" · round {rep + 1}"
        lines = [head]
        if marker.seconds is not None:
            if marker.timer:
                took = f"{COMPILE_TIMER}: {seconds_text(marker.seconds)}"
            elif marker.fields.get("cost"):
                took = f"{COMPILE_COST}: {seconds_text(marker.seconds)}"
            else:
                took = f"took {seconds_text(marker.seconds)}"
            cost = self.compile_costs.get((arm, bs)) if rep == 0 else None
            if cost is not None and marker.timer:
                share = marker.seconds / cost
                if share <= 1.0:
                    took += f", {share:.0%} of bs {bs}'s {COMPILE_COST} ({seconds_text(cost)})"
                else:
                    took += f", longer than bs {bs}'s {COMPILE_COST} ({seconds_text(cost)})"
            backward = marker.fields.get("backward_s")
            if isinstance(backward, (int, float)) and backward:
                took += f"; backward compile {seconds_text(float(backward))}"
            lines.append(took)
        if marker.fields.get("fail_type"):
            lines.append(
                f"failed: {marker.fields['fail_type']} {marker.fields.get('fail_reason') or ''}"
            )
        reason = marker.fields.get("reason") or ("first compile" if label == "compile" else "?")
        lines.append(str(reason))
        return "\n".join(lines)
