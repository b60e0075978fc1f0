"""The checks beside a batch size's compile cost, typed and read-only: the first step's compile
events against its wall-clock excess (a row's `compile_check`), inductor's once-per-machine CPU
check an arm's process ran before compiling (`arms[].model.cpu_check`), and the batch sizes where
CUDA graphs were skipped (`arms[].cudagraph_skips`). Sessions saved before them have none."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_float, as_int, items


@dataclass(frozen=True)
class CompileCheck:
    """torch's compile events in the first step, and the first step's excess over a steady
    step (s): the compile cost against a clock that is not torch's."""

    events_s: float | None
    excess_s: float | None

    @classmethod
    def of(cls, value: Any) -> CompileCheck | None:
        if not isinstance(value, Mapping):
            return None
        return cls(as_float(value.get("events_s")), as_float(value.get("excess_s")))


@dataclass(frozen=True)
class CpuCheck:
    """Inductor's CPU check in an arm's process: its time the first time on this machine
    (`first_s`), this process's own (`seconds`), whether this run built it, and why it could
    not run (None: it ran)."""

    first_s: float | None
    seconds: float | None
    built: bool
    error: str | None

    @classmethod
    def of(cls, model: Any) -> CpuCheck | None:
        check = model.get("cpu_check") if isinstance(model, Mapping) else None
        if not isinstance(check, Mapping):
            return None
        error = check.get("error")
        return cls(
            as_float(check.get("first_s")),
            as_float(check.get("seconds")),
            bool(check.get("built")),
            str(error) if error else None,
        )


def skipped_sizes(value: Any) -> tuple[int, ...]:
    """The batch sizes an arm's CUDA graphs were skipped at."""
    return tuple(b for b in (as_int(s.get("batch_size")) for s in items(value)) if b is not None)
