"""A session's row, typed and read-only: one arm at one batch size (step times, throughput,
the speedup with its interval, compile cost and each compile, memory, accuracy, what
TorchDynamo did, the error), built from the row's dict in session.json (docs/session-format.md
names every field). Missing keys, as old sessions have them, read as None or empty.

Each record keeps the dict it came from as `data` (read-only), so nothing session.json holds
is out of reach; the typed fields are what the readers use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tcprof.profiler.model.compiles import Compile, CompileCheck, CompileCost
from tcprof.profiler.model.figures import Interval, Problem
from tcprof.profiler.model.json_values import as_float as _float
from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_map, freeze, items
from tcprof.profiler.model.json_values import as_str as _str
from tcprof.profiler.model.profile import Profile
from tcprof.profiler.model.ranks import RankFigures
from tcprof.profiler.model.rules import (
    NOT_SETTLED,
    bound_text,
    holds_after_adjustment,
    memory_change,
    memory_words,
    one_round,
    outcome_kind,
    row_outcome,
    speedup_interval,
    speedup_settled,
    status_text,
)
from tcprof.profiler.model.script import ScriptFigures, curve
from tcprof.profiler.protocol import units


def _span(value: Any) -> tuple[float, float] | None:
    """[low, high] as saved: two finite numbers, or None."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    low, high = _float(value[0]), _float(value[1])
    return (low, high) if low is not None and high is not None else None


def _ints(value: Any) -> tuple[int, ...]:
    return tuple(i for i in map(_int, value or ()) if i is not None)


@dataclass(frozen=True)
class Speedup:
    """The arm's speedup over the baseline (above 1: faster) and its interval: the one the
    verdict uses, at `level` (a simultaneous interval: with the run's m comparisons each is at
    1 - 5%/m, so all of them cover together 95% of the time; one comparison: 95%; a session
    saved before simultaneous intervals: its 95% one, `level` 0.95). `method`:
    paired_t (across rounds), or steps_bootstrap (one round: `interval` None, since a bootstrap
    of one process's steps is no 95% interval; it is kept as `one_process_interval`).
    `settled`: the interval is narrow enough to quote `value` (the rule every view uses:
    its high end at most 1.5 times its low end); `str()` says "not settled" where it is not.
    `holds_after_adjustment` False: the family-wise adjustment does not keep the difference
    (with simultaneous intervals the verdict already is that adjustment)."""

    value: float
    interval: Interval | None
    method: str | None
    covers_processes: bool | None
    p_value: float | None
    holds_after_adjustment: bool | None
    settled: bool = False
    one_process_interval: Interval | None = None
    se_log: float | None = None  # paired t: the standard error of the mean log ratio
    rounds: int | None = None  # the paired rounds it rests on
    control_interval: Interval | None = None  # an A/A control's own interval
    control_flagged: bool = False  # that interval excludes 1.0: the control found a bias
    level: float | None = None  # the interval's own level (see above)

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Speedup | None:
        value = _float(row.get("speedup"))
        if value is None:
            return None
        one = row.get("speedup_ci_one_process")
        if one is None and one_round(row):  # saved before: the bootstrap was speedup_ci
            one = row.get("speedup_ci")
        return cls(
            value,
            Interval.of(speedup_interval(row)),
            _str(row.get("speedup_method")),
            row.get("interval_covers_processes"),
            _float(row.get("speedup_p")),
            row.get("holds_after_adjustment"),
            speedup_settled(row),
            Interval.of(one),
            _float(row.get("speedup_se_log")),
            _int(row.get("speedup_rounds")),
            Interval.of(row.get("aa_ci")),
            row.get("aa_flagged") is True,
            _interval_level(row),
        )

    def __str__(self) -> str:
        """'1.21x [1.17-1.28]'; 'not settled [0.55-43.92]'; 'not settled (one round: …)'."""
        # The one rule: report/sections/cells.fmt_speedup says this for every view.
        ci = self.interval
        if ci is None or ci.low is None or ci.high is None:
            return f"{NOT_SETTLED} (one round)"
        bounds = f"[{bound_text(ci.low)}-{bound_text(ci.high)}]"
        return f"{units.ratio(self.value) if self.settled else NOT_SETTLED} {bounds}"


def _interval_level(row: Mapping[str, Any]) -> float | None:
    """The level of the interval speedup_interval shows (None where it shows none)."""
    level = _float(row.get("interval_level"))
    if speedup_interval(row) is None:
        return None
    return level if level is not None and row.get("speedup_ci_simultaneous") else 0.95


@dataclass(frozen=True)
class Accuracy:
    """The untimed accuracy check of a compiled arm: pass, fail, nondeterministic (two eager
    runs differ: the model, not the compiler) or skipped, with the worst tensor and the
    tolerances used."""

    status: str
    rtol: float | None
    atol: float | None
    worst: Mapping[str, Any] | None = field(compare=False, hash=False)
    reason: str | None
    data: Mapping[str, Any] = field(repr=False, compare=False, hash=False)
    batch_size: int | None = None  # the batch size the check ran at
    float64: bool | None = None  # compared against a float64 eager run
    compared: int | None = None  # how many tensors were compared
    checked: tuple[str, ...] = ()  # what was compared (outputs, gradients, ...), in words
    autocast: str | None = None  # the dtype the check ran under autocast to
    steps: int | None = None  # untimed steps checked (2: the second from the first's weights)
    ranks_checked: int | None = None  # a distributed arm's ranks that ran the check
    parity: bool = False  # a script's loss parity ran: its curves were saved
    eager_curve: tuple[float | None, ...] = ()  # the parity runs' losses, step by step
    arm_curve: tuple[float | None, ...] = ()
    # a script's parity: the judged run had fallback_random (None: before 2026-12-06's fifth
    # sitting, when every parity run had it)
    fallback_random: bool | None = None

    @classmethod
    def of(cls, value: Any) -> Accuracy | None:
        if not isinstance(value, Mapping) or not isinstance(value.get("status"), str):
            return None
        worst = value.get("worst")
        return cls(
            value["status"],
            _float(value.get("rtol")),
            _float(value.get("atol")),
            freeze(worst) if isinstance(worst, Mapping) else None,
            _str(value.get("reason")),
            freeze(value),
            _int(value.get("batch_size")),
            value.get("float64") if isinstance(value.get("float64"), bool) else None,
            _int(value.get("compared")),
            tuple(str(c) for c in value.get("checked") or ()),
            _str(value.get("autocast")),
            _int(value.get("steps")),
            _int(value.get("ranks_checked")),
            bool(value.get("curves")),
            curve(as_map(value.get("curves")).get("eager")),
            curve(as_map(value.get("curves")).get("arm")),
            value.get("fallback_random")
            if isinstance(value.get("fallback_random"), bool)
            else None,
        )


@dataclass(frozen=True)
class Memory:
    """Memory at this batch size in MB: the training tensors' steady peak, the process's peak
    RSS (the compiler included), CUDA's peak, the first step's peak; `change` against the
    baseline's tensor peak (+0.14: 14% more), in words as the verdict says it."""

    steady_peak_mb: float | None
    peak_rss_mb: float | None
    peak_cuda_mb: float | None
    compile_peak_mb: float | None
    change: float | None
    words: str | None
    reserved_cuda_mb: float | None = None  # CUDA's caching allocator's peak reservation
    rss_change: float | None = None  # the peak RSS against the baseline's (+0.14: 14% more)
    steady_peak_method: str | None = None  # how the steady peak was measured
    ratio: float | None = None  # session.json's memory_ratio as saved: baseline / this arm

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Memory:
        return cls(
            _float(row.get("steady_peak_mb")),
            _float(row.get("peak_rss_mb")),
            _float(row.get("peak_cuda_mb")),
            _float(row.get("compile_peak_mb")),
            memory_change(row),
            memory_words(row),
            _float(row.get("peak_cuda_reserved_mb")),
            memory_change(row, "rss_ratio") if row.get("rss_ratio") is not None else None,
            _str(row.get("steady_peak_method")),
            _float(row.get("memory_ratio")),
        )


@dataclass(frozen=True)
class Row:
    """One arm at one batch size: step times (median over processes, ms), throughput (a
    script's own figures, its start-up among them: `script`), the speedup and `verdict` against the baseline, compile cost, memory,
    accuracy, and what TorchDynamo did. `partial`: a process was cut short, the figures are
    from fewer steps."""

    arm: str
    batch_size: int
    status: str
    verdict: str
    partial: bool
    median_ms: float | None
    p10_ms: float | None
    p90_ms: float | None
    mean_ms: float | None
    first_step_ms: float | None
    samples_per_s: float | None
    steps: int
    steps_measured: int | None
    replicates: int
    speedup: Speedup | None
    compile: CompileCost | None
    memory: Memory
    accuracy: Accuracy | None
    graphs: int | None
    graph_breaks: int
    recompiles: int
    fell_back: bool
    compile_status: str | None
    error: Problem | None
    compiles: tuple[Compile, ...]
    iqr_ms: float | None
    steps_planned: int | None
    warmup_steps: int | None
    steps_per_process: tuple[int, ...]
    process_medians_ms: tuple[float, ...]  # each process's median step
    noisy: bool  # the machine was busy during its blocks
    first_loss: float | None
    first_grad_norm: float | None
    last_loss: float | None
    world_size: int | None  # a distributed arm's ranks
    global_batch_size: int | None
    compiled_while_measuring: bool  # a compile fell inside a timed block
    control_speedup: float | None  # an A/A control's speedup over its twin
    data: Mapping[str, Any] = field(repr=False, compare=False, hash=False)
    interval_verdict: str | None = None  # as saved: faster, slower, no_difference, no_interval
    control_of: str | None = None  # an A/A control's row: its twin arm
    blocks_contended: int = 0  # blocks a busy machine slowed (the larger of the two counts)
    blocks_measured: int | None = None
    profile: Profile | None = None  # the torch.profiler pass (--profile-steps)
    # the verdict sentence's reading (model/verdict.py), by model/rules.py's rules:
    outcome: str = "unmeasured"  # its group: faster, slower, noise, no_interval, fell_back, ...
    holds: bool = True  # False: a difference the family-wise adjustment does not keep
    status_text: str = "?"  # 'ok'; 'stopped at 12/50' for a partial row
    ranks: tuple[RankFigures, ...] = ()  # a distributed arm's ranks, each its own figures
    script: ScriptFigures | None = None  # a script's own figures (model/script.py)
    compile_check: CompileCheck | None = None  # the first step's events against its excess
    blocks_unsteady: int = 0  # blocks during which the machine's own speed moved
    # the fastest and slowest reading of the machine's own speed over the blocks (us)
    reference_us: tuple[float, float] | None = None

    @classmethod
    def of(cls, arm: str, row: Mapping[str, Any], baseline: bool) -> Row:
        return cls(
            arm=arm,
            batch_size=int(row["batch_size"]),
            status=str(row.get("status") or "?"),
            verdict=row_outcome(row, baseline),
            partial=row.get("partial") is True,
            median_ms=_float(row.get("median_ms")),
            p10_ms=_float(row.get("p10_ms")),
            p90_ms=_float(row.get("p90_ms")),
            mean_ms=_float(row.get("mean_ms")),
            first_step_ms=_float(row.get("first_step_ms")),
            samples_per_s=_float(row.get("samples_per_s")),
            steps=_int(row.get("steps")) or 0,
            steps_measured=_int(row.get("steps_measured")),
            replicates=_int(row.get("replicates")) or 0,
            speedup=Speedup.of(row),
            compile=CompileCost.of(row),
            memory=Memory.of(row),
            accuracy=Accuracy.of(row.get("accuracy")),
            graphs=_int(row.get("graphs")),
            graph_breaks=_int(row.get("graph_breaks")) or 0,
            recompiles=_int(row.get("recompiles")) or 0,
            fell_back=row.get("fell_back") is True,
            compile_status=_str(row.get("compile_status")),
            error=Problem.of(row.get("error")),
            compiles=tuple(Compile.of(c) for c in items(row.get("compiles_list"))),
            iqr_ms=_float(row.get("iqr_ms")),
            steps_planned=_int(row.get("steps_planned")),
            warmup_steps=_int(row.get("warmup_steps")),
            steps_per_process=_ints(row.get("steps_per_process")),
            process_medians_ms=tuple(
                f for f in map(_float, row.get("process_medians_ms") or ()) if f is not None
            ),
            noisy=row.get("noisy") is True,
            first_loss=_float(row.get("first_loss")),
            first_grad_norm=_float(row.get("first_grad_norm")),
            last_loss=_float(row.get("last_loss")),
            world_size=_int(row.get("world_size")),
            global_batch_size=_int(row.get("global_batch_size")),
            compiled_while_measuring=row.get("compiled_while_measuring") is True,
            control_speedup=_float(row.get("aa_speedup")),
            data=freeze(row),
            interval_verdict=_str(row.get("verdict")),
            control_of=_str(row.get("aa_of")),
            blocks_contended=max(
                _int(row.get("contended_blocks")) or 0, _int(row.get("unquiet_blocks")) or 0
            ),
            blocks_measured=_int(row.get("blocks_measured")),
            profile=Profile.of(row.get("profile")),
            outcome=outcome_kind(row),
            holds=holds_after_adjustment(row),
            status_text=status_text(row),
            ranks=tuple(RankFigures.of(r) for r in items(row.get("ranks"))),
            script=ScriptFigures.of(row.get("script")),
            compile_check=CompileCheck.of(row.get("compile_check")),
            blocks_unsteady=_int(row.get("unsteady_blocks")) or 0,
            reference_us=_span(row.get("reference_us")),
        )

    @property
    def startup_s(self) -> float | None:
        """A script's start-up (s; `script.startup_s`); None for a model file's row."""
        return self.script.startup_s if self.script is not None else None
