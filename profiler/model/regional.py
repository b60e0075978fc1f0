"""Regional against whole-model compilation, as a session saved it (`regional`: one entry per
regional arm with a whole-model twin, per batch size both measured; analysis/regional.py makes
them), typed and read-only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_float as _float
from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_str as _str


@dataclass(frozen=True)
class Tradeoff:
    """One regional arm against its whole-model twin at one batch size: compile seconds saved,
    milliseconds per step lost, the steps after which the slower-compiling arm repays, and the
    verdict in words ('regional wins', 'regional for shorter runs', ..., 'unknown')."""

    regional: str | None
    whole: str | None
    batch_size: int | None
    compile_saved_s: float | None
    step_ms_lost: float | None
    break_even_steps: int | None
    verdict: str | None

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Tradeoff:
        return cls(
            _str(value.get("regional")),
            _str(value.get("whole")),
            _int(value.get("batch_size")),
            _float(value.get("compile_saved_s")),
            _float(value.get("step_ms_lost")),
            _int(value.get("break_even_steps")),
            _str(value.get("verdict")),
        )
