"""What an arm's worker loaded (session.json's `arms[].model`), typed and read-only: how the
model was built, its input and where that came from, how it was wrapped (a regional compile's
blocks, a distributed arm's parallel wrapper), and inductor's once-per-machine CPU check its
process ran before compiling. The reproducer rebuilds the arm from it; the mapping as saved
stays in `Arm.data` (model/raw.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_float, as_int, as_str


@dataclass(frozen=True)
class Regional:
    """A regional compile: the blocks' container (`where`, None: found by class) and class."""

    where: str | None
    block_class: str | None


@dataclass(frozen=True)
class Parallel:
    """A distributed arm's wrapper (ddp, fsdp), its ranks and where FSDP sharded blocks."""

    kind: str | None
    world_size: int | None
    sharded_where: str | None


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
    def of(cls, check: Any) -> CpuCheck | None:
        if not isinstance(check, Mapping):
            return None
        error = check.get("error")
        return cls(
            as_float(check.get("first_s")),
            as_float(check.get("seconds")),
            bool(check.get("built")),
            str(error) if error else None,
        )


@dataclass(frozen=True)
class Loaded:
    """How the model was built (`model`), its input as the worker described it and where the
    input came from (`input_source`: hook, shape, inferred), its wrapping, and the CPU check
    (None: none ran, as in sessions before it and on every arm but inductor's on the CPU)."""

    model: str | None
    input: str | None
    input_source: str | None
    regional: Regional | None
    parallel: Parallel | None
    cpu_check: CpuCheck | None = None
    params: int | None = None  # the model's parameters, counted

    @classmethod
    def of(cls, value: Any) -> Loaded | None:
        if not isinstance(value, Mapping) or not value:
            return None
        regional, parallel = value.get("regional"), value.get("parallel")
        return cls(
            as_str(value.get("model")),
            as_str(value.get("input")),
            as_str(value.get("input_source")),
            _regional(regional) if isinstance(regional, Mapping) else None,
            _parallel(parallel) if isinstance(parallel, Mapping) else None,
            CpuCheck.of(value.get("cpu_check")),
            as_int(value.get("params")),
        )


def _regional(value: Mapping[str, Any]) -> Regional:
    where, block = value.get("where"), value.get("class")
    return Regional(str(where) if where else None, str(block) if block is not None else None)


def _parallel(value: Mapping[str, Any]) -> Parallel:
    blocks = value.get("sharded_blocks")
    where = blocks.get("where") if isinstance(blocks, Mapping) else None
    return Parallel(
        as_str(value.get("parallel")),
        as_int(value.get("world_size")),
        str(where) if where else None,
    )
