"""The time left while a run is in progress: the estimate's units (profiler/run/estimate.py) taken
off as their progress events arrive (a worker loaded, a first step, a block, an accuracy check,
a worker's exit), what is left scaled by how the run's real pace compares with the estimate.

The pace is kept per kind of unit: workers that start four times faster than priced say
nothing about compiles (a run 12 s in showed "~37 s left" of three minutes, the workers' pace
applied to every compile after them). A kind with no unit done yet keeps its price."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.types import Json
from tcprof.profiler.run.estimate import ACCURACY, Estimate, Unit

UnitKey = tuple[str, int, int | None, int | str, int]  # kind, arm, batch size, round, id

PACE_RANGE = (0.3, 5.0)  # how far the real pace may correct the estimate


class TimeLeft:
    """Time left from the estimate's units and the progress events of the run."""

    def __init__(self, est: Estimate, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.started = clock()
        self._remaining = {self._key(u): u.seconds for u in est.units}
        self._left = sum(self._remaining.values())
        self._done: dict[str, float] = {}  # per kind: the priced seconds of the units done
        self._took: dict[str, float] = {}  # per kind: the seconds they really took
        self._last = self.started  # when a unit was last done

    @staticmethod
    def _key(u: Unit) -> UnitKey:
        return (u.kind, u.arm, u.batch_size, u.replicate, id(u))

    def _take(self, key: UnitKey | None) -> None:
        if key is None or key not in self._remaining:
            return
        seconds = self._remaining.pop(key)
        self._left -= seconds
        now = self._clock()
        kind = key[0]
        self._done[kind] = self._done.get(kind, 0.0) + seconds
        self._took[kind] = self._took.get(kind, 0.0) + (now - self._last)
        self._last = now

    def _find(self, kind: str, arm: Any, bs: Any, rep: Any) -> UnitKey | None:
        for key in self._remaining:
            if key[:4] == (kind, arm, bs, rep):
                return key
        return None

    def apply(self, event: Json) -> None:
        kind, arm = event.get("type"), event.get("arm")
        rep = event.get("replicate", 0)
        bs = event.get("batch_size")
        if kind == "loaded":  # the process is up and its model built
            self._take(self._find("process", arm, None, rep))
        elif kind == "worker_exit":
            self._take(self._find("exit", arm, None, rep))
        elif kind in ("first_step", "block_done") and rep != ACCURACY:
            self._take(self._find("block" if kind == "block_done" else kind, arm, bs, rep))
        elif kind == "accuracy":
            self._take(self._find("accuracy", arm, bs, ACCURACY))

    def pace(self, kind: str) -> float:
        """How long this kind of unit really took against its price, so far (1.0: none done)."""
        done, took = self._done.get(kind, 0.0), self._took.get(kind, 0.0)
        if done <= 0 or took <= 0:
            return 1.0
        return min(PACE_RANGE[1], max(PACE_RANGE[0], took / done))

    def seconds(self) -> float:
        """The estimate of what is left, each unit scaled by its kind's pace so far, less the
        time spent on the unit in progress; never less than the units after it (a compile
        that overruns its price does not make the run 'almost done')."""
        scaled = [(key, price * self.pace(key[0])) for key, price in self._remaining.items()]
        if not scaled:
            return 0.0
        total = sum(seconds for _key, seconds in scaled)
        current = scaled[0][1]  # the first unit not done
        since = self._clock() - self._last
        return max(0.0, total - current, total - since)

    def text(self) -> str:
        left = self.seconds()
        return "time left: almost done" if left < 1 else f"time left ~{units.duration(left)}"
