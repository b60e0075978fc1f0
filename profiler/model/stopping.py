"""Why a run that stops when settled stopped (session.json's `stopping`, analysis/stopping.py's
`record`), typed and read-only. A run of a fixed number of rounds, or a session saved before
schema 4, has none."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_float, as_int, as_str


@dataclass(frozen=True)
class Stopping:
    """The reason (settled, precision, budget or max_rounds), the round it stopped after, the
    looks it planned, every interval's level (Pocock's over the looks), and the precision and
    budget it was given (None: not given)."""

    reason: str | None
    rounds: int | None
    looks: tuple[int, ...]
    level: float | None
    precision: float | None
    budget_s: float | None

    @classmethod
    def of(cls, value: Any) -> Stopping | None:
        if not isinstance(value, Mapping):
            return None
        return cls(
            as_str(value.get("reason")),
            as_int(value.get("rounds")),
            tuple(n for n in map(as_int, value.get("looks") or ()) if n is not None),
            as_float(value.get("level")),
            as_float(value.get("precision")),
            as_float(value.get("budget_s")),
        )
