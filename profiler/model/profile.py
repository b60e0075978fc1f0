"""A row's torch.profiler pass, typed and read-only: a separate pass after the measured steps
(it does not change the timings), its top operators by self time per step, and whether it
describes the measured step (analysis/profile_check.py's `mismatch`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_float as _float
from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_str as _str
from tcprof.profiler.model.json_values import items


def _number(value: Any) -> float | None:
    """A JSON number as saved: an integer stays one (a count reads '5', not '5.0')."""
    whole = _int(value)
    return whole if whole is not None else _float(value)


@dataclass(frozen=True)
class TopOp:
    """One operator of the profile: how often it ran per step, its self and total ms per step."""

    name: str | None
    calls: float | None
    self_ms_per_step: float | None
    total_ms_per_step: float | None

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> TopOp:
        return cls(
            _str(value.get("name")),
            _number(value.get("calls")),
            _float(value.get("self_ms_per_step")),
            _float(value.get("total_ms_per_step")),
        )


@dataclass(frozen=True)
class Profile:
    """The profiled steps, the trace's path, the top operators, the profiled steps' wall time
    each, whether the machine was quiet, and why it does not describe the measured step (None:
    it does)."""

    steps: int | None
    path: str | None
    top_ops: tuple[TopOp, ...]
    step_ms: float | None
    quiet: bool | None
    mismatch: str | None

    @classmethod
    def of(cls, value: Any) -> Profile | None:
        if not isinstance(value, Mapping) or not value:
            return None
        quiet = value.get("quiet")
        return cls(
            _int(value.get("steps")),
            _str(value.get("path")),
            tuple(TopOp.of(op) for op in items(value.get("top_ops"))),
            _float(value.get("step_ms")),
            quiet if isinstance(quiet, bool) else None,
            _str(value.get("mismatch")),
        )
