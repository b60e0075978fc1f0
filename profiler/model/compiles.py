"""What compiling cost at one batch size, where that time went, each compile, and that cost
checked against a clock that is not torch's, typed and read-only, from a session.json row."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tcprof.profiler.model.figures import Interval
from tcprof.profiler.model.json_values import EMPTY, freeze
from tcprof.profiler.model.json_values import as_float as _float
from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_str as _str


@dataclass(frozen=True)
class CompileBreakdown:
    """Where the compile time went (torch's own counters): TorchDynamo, the backend, inductor,
    code generation, the backward graph; the FX graph cache's hits and misses."""

    compiles: int | None
    dynamo_s: float | None
    backend_s: float | None
    inductor_s: float | None
    code_gen_s: float | None
    backward_s: float | None
    fx_cache_hits: int | None
    fx_cache_misses: int | None
    fx_cache: str | None

    @classmethod
    def of(cls, value: Any) -> CompileBreakdown | None:
        if not isinstance(value, Mapping):
            return None
        return cls(
            _int(value.get("compiles")),
            _float(value.get("dynamo_s")),
            _float(value.get("backend_s")),
            _float(value.get("inductor_s")),
            _float(value.get("code_gen_s")),
            _float(value.get("backward_s")),
            _int(value.get("fx_cache_hits")),
            _int(value.get("fx_cache_misses")),
            _str(value.get("fx_cache")),
        )


@dataclass(frozen=True)
class CompileCost:
    """What compiling cost at this batch size, in seconds: cold (an empty cache), warm (the
    cold round's cache), portable (a fresh process given the cold round's cache artefacts),
    each less the baseline's own first-step cost; `missing` says why a figure is absent. The
    break-even is the steps after which the speedup has paid the cold compile back."""

    cold_s: float | None
    warm_s: float | None
    portable_s: float | None
    first_s: float | None  # the first compile measured (cold unless --warm-cache)
    dynamo_s: float | None  # TorchDynamo's own compile time
    break_even_steps: float | None
    break_even: Interval | None
    missing: Mapping[str, Any] = field(compare=False, hash=False)
    warm_break_even_steps: float | None = None  # the warm compile's break-even
    warm_break_even: Interval | None = None
    timer_s: float | None = None  # the first step's own timer, compile included
    first_step_extra_s: float | None = None  # the first step's time beyond a steady step
    breakdown: CompileBreakdown | None = None
    first_break_even_steps: float | None = None  # the first compile's (`break_even_steps`)

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> CompileCost | None:
        # compile_timer_s: a failed arm's only figure, torch's own timer
        keys = (
            "compile_s",
            "compile_cold_s",
            "compile_warm_s",
            "compile_portable_s",
            "compile_timer_s",
        )
        if all(row.get(k) is None for k in keys) and not row.get("compile_missing"):
            return None
        cold = row.get("compile_cold_s")
        first = (row.get("break_even_steps"), row.get("break_even_ci"))
        cold_pair = (row.get("break_even_cold_steps"), row.get("break_even_cold_ci"))
        steps, ci = cold_pair if cold is not None else first
        return cls(
            _float(cold),
            _float(row.get("compile_warm_s")),
            _float(row.get("compile_portable_s")),
            _float(row.get("compile_s")),
            _float(row.get("dynamo_compile_s")),
            _float(steps),
            Interval.of(ci),
            freeze(row.get("compile_missing") or {}),
            _float(row.get("break_even_warm_steps")),
            Interval.of(row.get("break_even_warm_ci")),
            _float(row.get("compile_timer_s")),
            _float(row.get("first_step_extra_s")),
            CompileBreakdown.of(row.get("compile_breakdown")),
            _float(row.get("break_even_steps")),
        )


@dataclass(frozen=True)
class Compile:
    """One compile at this batch size (`compiles_list`): which (`compile_id`, `kind`), when (the
    phase, the step), the call that triggered it (frame, file, line; `site_*`: the user's line
    that reached it), why (a recompile's guard), and its time and share of the compile cost."""

    compile_id: str | None
    kind: str | None
    when: str | None
    at_step: int | None
    frame: str | None
    file: str | None
    line: int | None
    site_file: str | None
    site_line: int | None
    reason: str | None
    seconds: float | None
    share: float | None
    grad_mode: bool | None = None
    shapes: tuple[tuple[int, ...], ...] = ()  # the input shapes it was compiled for
    data: Mapping[str, Any] = field(
        repr=False, compare=False, hash=False, default_factory=lambda: EMPTY
    )

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Compile:
        return cls(
            _str(value.get("compile_id")),
            _str(value.get("kind")),
            _str(value.get("when")),
            _int(value.get("at_step")),
            _str(value.get("frame")),
            _str(value.get("file")),
            _int(value.get("line")),
            _str(value.get("site_file")),
            _int(value.get("site_line")),
            _str(value.get("reason")),
            _float(value.get("seconds")),
            _float(value.get("share")),
            value.get("grad_mode") if isinstance(value.get("grad_mode"), bool) else None,
            tuple(
                tuple(d for d in shape if isinstance(d, int))
                for shape in value.get("shapes") or ()
                if isinstance(shape, (list, tuple))
            ),
            freeze(value),
        )


@dataclass(frozen=True)
class CompileCheck:
    """torch's compile events in the first step, and the first step's excess over a steady
    step (s): the compile cost against a clock that is not torch's (a row's `compile_check`;
    sessions saved before it have none)."""

    events_s: float | None
    excess_s: float | None

    @classmethod
    def of(cls, value: Any) -> CompileCheck | None:
        if not isinstance(value, Mapping):
            return None
        return cls(_float(value.get("events_s")), _float(value.get("excess_s")))
