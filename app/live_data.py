"""The numbers behind the live plots: growable numpy buffers per arm, fed from run events.

Kept free of Qt so it is cheap to test and so the plots can pull from it on a timer instead of
redrawing per event. Every arm shares one x axis, "step": batch size k of the run occupies
steps [k*span, (k+1)*span) with span = 1 + warmup + steps, so phases line up across arms and
batch-size boundaries are known before any data arrives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

INITIAL_CAPACITY = 4096


class Series:
    """An append-only (x, y) series in doubling numpy buffers; `version` bumps on change."""

    def __init__(self, capacity: int = INITIAL_CAPACITY) -> None:
        self._x = np.empty(capacity, dtype=np.float64)
        self._y = np.empty(capacity, dtype=np.float64)
        self.n = 0
        self.version = 0

    def extend(self, xs: np.ndarray, ys: np.ndarray) -> None:
        k = len(xs)
        if k == 0:
            return
        need = self.n + k
        if need > len(self._x):
            cap = max(need, 2 * len(self._x))
            self._x = np.resize(self._x, cap)
            self._y = np.resize(self._y, cap)
        self._x[self.n : need] = xs
        self._y[self.n : need] = ys
        self.n = need
        self.version += 1

    def append(self, x: float, y: float) -> None:
        self.extend(np.array([x], dtype=np.float64), np.array([y], dtype=np.float64))

    def data(self) -> tuple[np.ndarray, np.ndarray]:
        """Views (no copy) of the filled part."""
        return self._x[: self.n], self._y[: self.n]


@dataclass
class Marker:
    """A compile or recompile moment: where it is, and the text shown on hover."""

    x: float
    kind: str  # first | recompile
    text: str


@dataclass
class ArmTrace:
    name: str
    step_ms: Series = field(default_factory=Series)
    throughput: Series = field(default_factory=Series)
    rss_mb: Series = field(default_factory=Series)
    cuda_alloc_mb: Series = field(default_factory=Series)
    cuda_reserved_mb: Series = field(default_factory=Series)
    markers: list[Marker] = field(default_factory=list)
    markers_version: int = 0

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

    def __init__(self, arm_names: list[str], batch_sizes: list[int], warmup: int, steps: int):
        self.arms = [ArmTrace(n) for n in arm_names]
        self.batch_sizes = list(batch_sizes)
        self.span = 1 + warmup + steps
        self.points = 0

    @classmethod
    def from_config(cls, config: Any) -> LiveData:
        return cls(
            [a.name for a in config.arms], list(config.batch_sizes), config.warmup, config.steps
        )

    def boundaries(self) -> list[tuple[float, int]]:
        """(x, batch size) where each batch size's phase starts."""
        return [(float(k * self.span), bs) for k, bs in enumerate(self.batch_sizes)]

    def _offset(self, batch_size: Any) -> int | None:
        try:
            return self.batch_sizes.index(batch_size) * self.span
        except ValueError:
            return None

    def _trace(self, event: dict[str, Any]) -> ArmTrace | None:
        idx = event.get("arm")
        if isinstance(idx, int) and 0 <= idx < len(self.arms):
            return self.arms[idx]
        return None

    def apply(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind not in ("steps", "memory", "compile"):
            return
        trace = self._trace(event)
        offset = self._offset(event.get("batch_size"))
        if trace is None or offset is None:
            return
        if kind == "steps":
            ms = np.asarray(event.get("ms") or (), dtype=np.float64)
            if len(ms) == 0:
                return
            xs = offset + int(event.get("start") or 0) + np.arange(len(ms), dtype=np.float64)
            trace.step_ms.extend(xs, ms)
            with np.errstate(divide="ignore"):
                trace.throughput.extend(
                    xs, np.where(ms > 0, event["batch_size"] * 1000.0 / np.maximum(ms, 1e-12), 0.0)
                )
            self.points += len(ms)
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
