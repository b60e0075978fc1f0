"""The small records a session's parts share: an interval, and an error a worker reported."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tcprof.profiler.model.json_values import as_float as _float
from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_str as _str


@dataclass(frozen=True)
class Interval:
    """A 95% interval; `high` None: unbounded (a break-even that may never come)."""

    low: float | None
    high: float | None

    @classmethod
    def of(cls, pair: Any) -> Interval | None:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            return None
        return cls(_float(pair[0]), _float(pair[1]))

    def contains(self, value: float) -> bool:
        return (self.low is None or self.low <= value) and (self.high is None or value <= self.high)


@dataclass(frozen=True)
class Problem:
    """An error a worker reported: its kind (load, compile, oom, crash, stall, usage, ...),
    the message, and the user's file and line when the error is in their code."""

    kind: str
    message: str
    file: str | None
    line: int | None
    traceback: str | None = field(repr=False)
    exception: str | None = None  # the exception's type
    batch_size: int | None = None
    arm: int | None = None  # a session-wide error's arm index
    fatal: bool = False  # the run stopped on it
    steps_run: int | None = None

    @classmethod
    def of(cls, value: Any) -> Problem | None:
        if not isinstance(value, Mapping):
            return None
        return cls(
            str(value.get("kind") or "error"),
            str(value.get("message") or ""),
            _str(value.get("file")),
            _int(value.get("line")),
            _str(value.get("traceback")),
            _str(value.get("exception")),
            _int(value.get("batch_size")),
            _int(value.get("arm")),
            value.get("fatal") is True,
            _int(value.get("steps_run")),
        )
