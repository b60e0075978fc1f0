"""The numbers behind the live plots: growable numpy buffers per arm, fed from run events.

Kept free of Qt so it is cheap to test and so the plots can pull from it on a timer instead of
redrawing per event. Only the GUI thread touches it (RunController applies drained events, the
plots read), so it needs no lock. Applying an event is cheap: small `steps` events (a worker
sends one per step at high rates) are appended to plain lists, and turned into numpy in one
go when the plots next read the buffers (~1 us per event instead of ~50 us of numpy calls).

Every arm shares one x axis, "step". A run is rounds (replicates) of batch sizes; each (round,
batch size) is a section that starts where the previous one's data ended, and at least
span = 1 + warmup + steps after its start, so phases line up across arms. Sections are laid
out as they begin: a timed block may run more steps than asked for (to last its minimum
time), so a section's width is known only once it is measured. Events of the untimed
accuracy pass are not plotted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tcprof.profiler.report.palette import is_eager

INITIAL_CAPACITY = 4096
SMALL_EVENT = 64  # steps events up to this many steps are buffered in lists


class Series:
    """An append-only (x, y) series in doubling numpy buffers; `version` bumps on change."""

    def __init__(self, capacity: int = INITIAL_CAPACITY) -> None:
        self._x = np.empty(capacity, dtype=np.float64)
        self._y = np.empty(capacity, dtype=np.float64)
        self._n = 0
        self.version = 0
        self._before_read: Callable[[], None] | None = None  # folds pending data in

    @property
    def n(self) -> int:
        if self._before_read is not None:
            self._before_read()
        return self._n

    def extend(self, xs: np.ndarray, ys: np.ndarray) -> None:
        k = len(xs)
        if k == 0:
            return
        need = self._n + k
        if need > len(self._x):
            cap = max(need, 2 * len(self._x))
            self._x = np.resize(self._x, cap)
            self._y = np.resize(self._y, cap)
        self._x[self._n : need] = xs
        self._y[self._n : need] = ys
        self._n = need
        self.version += 1

    def append(self, x: float, y: float) -> None:
        self.extend(np.array([x], dtype=np.float64), np.array([y], dtype=np.float64))

    def data(self) -> tuple[np.ndarray, np.ndarray]:
        """Views (no copy) of the filled part."""
        n = self.n
        return self._x[:n], self._y[:n]


@dataclass
class Marker:
    """A compile or recompile moment: where it is, and the text shown on hover."""

    x: float
    kind: str  # first | recompile
    text: str


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
    markers: list[Marker] = field(default_factory=list)
    markers_version: int = 0
    section: tuple[Any, Any] | None = None  # the (round, batch size) its last steps were in
    # Small steps events not yet in step_ms / throughput: x, ms and batch size per step.
    _pending_x: list[int] = field(default_factory=list, repr=False)
    _pending_ms: list[float] = field(default_factory=list, repr=False)
    _pending_bs: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.step_ms._before_read = self.flush
        self.throughput._before_read = self.flush

    def add_steps(self, x0: int, ms: list[float] | np.ndarray, batch_size: int) -> None:
        """Steps x0, x0+1, ... took `ms` milliseconds each."""
        k = len(ms)
        if k <= SMALL_EVENT and not isinstance(ms, np.ndarray):
            self._pending_x.extend(range(x0, x0 + k))
            self._pending_ms.extend(ms)
            self._pending_bs.extend([batch_size] * k)
            self.step_ms.version += 1  # readers see a change; the data follows on read
            self.throughput.version += 1
            return
        self.flush()
        ms_arr = np.asarray(ms, dtype=np.float64)
        self._extend(x0 + np.arange(k, dtype=np.float64), ms_arr, float(batch_size))

    def add_gap(self, x: float) -> None:
        """A break in the step-time and throughput lines (NaN: the plots draw connect='finite'),
        so a section's first steps are not joined to the previous section's last."""
        self.flush()
        gap = np.array([float(x)])
        nan = np.array([np.nan])
        self.step_ms.extend(gap, nan)
        self.throughput.extend(gap, nan)
        if self.fastest_ms.n:
            self.fastest_ms.extend(gap, nan)
            self.slowest_ms.extend(gap, nan)

    def add_spread(self, x0: int, slowest: list[float], fastest: list[float]) -> None:
        """The fastest and slowest rank's ms for steps x0, x0+1, ... (a distributed arm)."""
        k = min(len(slowest), len(fastest))
        xs = x0 + np.arange(k, dtype=np.float64)
        self.fastest_ms.extend(xs, np.asarray(fastest[:k], dtype=np.float64))
        self.slowest_ms.extend(xs, np.asarray(slowest[:k], dtype=np.float64))

    def flush(self) -> None:
        """Fold pending small steps events into the numpy buffers."""
        if not self._pending_ms:
            return
        xs = np.array(self._pending_x, dtype=np.float64)
        ms = np.array(self._pending_ms, dtype=np.float64)
        bs = np.array(self._pending_bs, dtype=np.float64)
        self._pending_x, self._pending_ms, self._pending_bs = [], [], []
        self._extend(xs, ms, bs)

    def _extend(self, xs: np.ndarray, ms: np.ndarray, bs: float | np.ndarray) -> None:
        self.step_ms.extend(xs, ms)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.throughput.extend(xs, np.where(ms > 0, bs * 1000.0 / np.maximum(ms, 1e-12), 0.0))

    def series(self) -> dict[str, Series]:
        return {
            "step_ms": self.step_ms,
            "throughput": self.throughput,
            "rss_mb": self.rss_mb,
            "cuda_alloc_mb": self.cuda_alloc_mb,
            "cuda_reserved_mb": self.cuda_reserved_mb,
        }


class LiveData:
    """Folds `steps`, `memory` and `compile` events of one run into plottable buffers."""

    def __init__(
        self,
        arm_names: list[str],
        batch_sizes: list[int],
        warmup: int,
        steps: int,
        replicates: int = 1,
        device: str | None = None,
        eager: list[bool] | None = None,
    ):
        flags = eager if eager is not None else [is_eager(n) for n in arm_names]
        self.arms = [ArmTrace(n, eager=e) for n, e in zip(arm_names, flags, strict=False)]
        self.device = device  # what the memory plot's title names (None: decided by the data)
        self.batch_sizes = list(batch_sizes)
        self.span = 1 + warmup + steps
        self.replicates = max(1, replicates)
        self.points = 0
        self._sections: list[tuple[int, int, int]] = []  # (x, replicate, batch size)
        self._section_x: dict[tuple[int, int], int] = {}
        self._extent = 0  # one past the largest x with data
        self.sections_version = 0

    @classmethod
    def from_config(cls, config: Any) -> LiveData:
        return cls(
            [a.name for a in config.run_arms],
            list(config.batch_sizes),
            config.warmup,
            config.steps,
            config.replicates,
            device=config.device,
            eager=[is_eager(a.backend) for a in config.run_arms],
        )

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
        for event in events:
            data.apply(event)
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

    def sections(self) -> list[tuple[float, str]]:
        """(x, label) of each section: 'bs=32', with the round when there are several."""
        many = self.replicates > 1
        return [
            (float(x), f"r{rep + 1} bs={bs}" if many else f"bs={bs}")
            for x, rep, bs in self._sections
        ]

    def x_extent(self) -> float:
        """The x range to show: the planned sections, or further if the data went further."""
        planned = self.span * max(1, len(self.batch_sizes)) * self.replicates
        return max(float(planned), self._extent)

    def _offset(self, event: dict[str, Any]) -> int | None:
        rep = event.get("replicate")
        rep = 0 if rep is None else rep
        bs = event.get("batch_size")
        if not isinstance(rep, int) or bs not in self.batch_sizes:
            return None  # the untimed accuracy pass, or an unknown batch size
        key = (rep, bs)
        x = self._section_x.get(key)
        if x is None:
            last = self._sections[-1][0] if self._sections else -self.span
            x = max(self._extent, last + self.span)
            self._section_x[key] = x
            self._sections.append((x, rep, bs))
            self.sections_version += 1
        return x

    def _reach(self, x: int) -> None:
        if x + 1 > self._extent:
            self._extent = x + 1

    def _trace(self, event: dict[str, Any]) -> ArmTrace | None:
        idx = event.get("arm")
        if isinstance(idx, int) and 0 <= idx < len(self.arms):
            return self.arms[idx]
        return None

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
        if kind not in ("steps", "memory", "compile"):
            return
        trace = self._trace(event)
        offset = self._offset(event) if trace is not None else None
        if trace is None or offset is None:
            return
        if kind == "steps":
            ms = event.get("ms")
            if ms is None or len(ms) == 0:
                return
            x0 = offset + int(event.get("start") or 0)
            section = (event.get("replicate"), event["batch_size"])
            if trace.section is not None and trace.section != section:
                trace.add_gap(x0 - 0.5)
            trace.section = section
            trace.add_steps(x0, ms, event["batch_size"])
            fastest = event.get("ms_fastest")
            if isinstance(fastest, list) and fastest:
                trace.add_spread(x0, list(ms), fastest)
            self.points += len(ms)
            self._reach(x0 + len(ms) - 1)
        elif kind == "memory":
            x = float(offset + int(event.get("step") or 0))
            for key in ("rss_mb", "cuda_alloc_mb", "cuda_reserved_mb"):
                value = event.get(key)
                if value is not None:
                    getattr(trace, key).append(x, float(value))
        else:
            seconds = event.get("seconds")
            label = "compile" if event.get("kind") == "first" else "recompile"
            where = f" in {event.get('frame')}" if event.get("frame") else ""
            took = f" ({seconds:.2f} s)" if isinstance(seconds, (int, float)) else ""
            reason = event.get("reason") or ("first compile" if label == "compile" else "?")
            text = f"{trace.name} · bs {event['batch_size']} · {label}{where}{took}\n{reason}"
            x = float(offset + int(event.get("step") or 0))
            trace.markers.append(Marker(x, event.get("kind") or "first", text))
            trace.markers_version += 1
