"""Where a run's time went, as a session saved it (session.json's `timeline`, written by
analysis/timeline.py), typed and read-only: one lane per process with its spans, and the run's
wall time by category. A session from before the timeline has none; the readers show nothing
either for one without lanes (a run that started no process)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from tcprof.profiler.model.json_values import as_float, as_int, as_str, items


@dataclass(frozen=True)
class Span:
    """What a process did from `start` to `end` (seconds since the run started): `what` in
    words, its `category` (the totals'), the batch size it ran at and, for a lane's
    consecutive blocks drawn as one span, how many blocks it holds. None where an old or
    hand-edited session lacks it."""

    start: float | None
    end: float | None
    what: str | None
    category: str | None
    batch_size: int | None
    count: int | None

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Span:
        return cls(
            as_float(value.get("start")),
            as_float(value.get("end")),
            as_str(value.get("what")),
            as_str(value.get("category")),
            as_int(value.get("batch_size")),
            as_int(value.get("count")),
        )


@dataclass(frozen=True)
class Lane:
    """One process: an arm (its index and name) in a round (the replicate, "accuracy" for the
    arm's untimed accuracy process, "preflight" for the engine's own check before the run),
    the compile cache it started with, its spans in order."""

    arm: int | None
    name: str | None
    round: int | str | None
    cache: str | None
    spans: tuple[Span, ...]

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Lane:
        rnd = value.get("round")
        return cls(
            as_int(value.get("arm")),
            as_str(value.get("name")),
            rnd if isinstance(rnd, (int, str)) and not isinstance(rnd, bool) else None,
            as_str(value.get("cache")),
            tuple(Span.of(s) for s in items(value.get("spans"))),
        )


@dataclass(frozen=True)
class Timeline:
    """The run's wall time (its preflight check included), its seconds per category (they add
    up to the wall time), the seconds no process did anything, and the lanes."""

    wall_s: float | None
    totals: Mapping[str, float]
    gaps_s: float | None
    lanes: tuple[Lane, ...]

    @classmethod
    def of(cls, value: Any) -> Timeline | None:
        """The timeline session.json saved (None: not a JSON object, a session before it)."""
        if not isinstance(value, Mapping):
            return None
        totals = value.get("totals")
        seconds = {
            str(category): number
            for category, s in (totals.items() if isinstance(totals, Mapping) else ())
            if (number := as_float(s)) is not None
        }
        return cls(
            as_float(value.get("wall_s")),
            MappingProxyType(seconds),
            as_float(value.get("gaps_s")),
            tuple(Lane.of(lane) for lane in items(value.get("lanes"))),
        )

    def total(self, category: str) -> float:
        """The seconds the run spent on `category` (0 where the session saved none)."""
        return self.totals.get(category, 0.0)
