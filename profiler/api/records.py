"""The typed, read-only parts of a Session: an arm, its rows (one per batch size) and what each
row holds, built from the dicts of session.json (docs/session-format.md names every field).

Each record keeps the dict it came from as `data` (read-only), so nothing session.json holds
is out of reach; the typed fields are the figures a notebook or a CI gate reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tcprof.profiler.analysis.verdict import (
    memory_change,
    memory_words,
    one_round,
    row_outcome,
    speedup_interval,
    speedup_settled,
)
from tcprof.profiler.api.frozen import freeze
from tcprof.profiler.report.sections.table import fmt_speedup


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


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
    level: float | None = None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Speedup | None:
        value = _float(row.get("speedup"))
        if value is None:
            return None
        plain = dict(row)
        one = row.get("speedup_ci_one_process")
        if one is None and one_round(plain):  # saved before: the bootstrap was speedup_ci
            one = row.get("speedup_ci")
        return cls(
            value,
            Interval.of(speedup_interval(plain)),
            _str(row.get("speedup_method")),
            row.get("interval_covers_processes"),
            _float(row.get("speedup_p")),
            row.get("holds_after_adjustment"),
            speedup_settled(plain),
            Interval.of(one),
            _interval_level(plain),
        )

    def __str__(self) -> str:
        """'1.21x [1.17-1.28]'; 'not settled [0.55-43.92]'; 'not settled (one round: …)'."""
        return fmt_speedup(
            {
                "speedup": self.value,
                "speedup_ci": [self.interval.low, self.interval.high] if self.interval else None,
                "interval_covers_processes": self.interval is not None,
            }
        )


def _interval_level(row: dict[str, Any]) -> float | None:
    """The level of the interval speedup_interval shows (None where it shows none)."""
    if speedup_interval(row) is None:
        return None
    level = _float(row.get("interval_level"))
    return level if level is not None and row.get("speedup_ci_simultaneous") else 0.95


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

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> CompileCost | None:
        keys = ("compile_s", "compile_cold_s", "compile_warm_s", "compile_portable_s")
        if all(row.get(k) is None for k in keys) and not row.get("compile_missing"):
            return None
        cold = row.get("compile_cold_s")
        steps_key, ci_key = (
            ("break_even_cold_steps", "break_even_cold_ci")
            if cold is not None
            else ("break_even_steps", "break_even_ci")
        )
        return cls(
            _float(cold),
            _float(row.get("compile_warm_s")),
            _float(row.get("compile_portable_s")),
            _float(row.get("compile_s")),
            _float(row.get("dynamo_compile_s")),
            _float(row.get(steps_key)),
            Interval.of(row.get(ci_key)),
            freeze(row.get("compile_missing") or {}),
        )


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

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Memory:
        plain = dict(row)
        return cls(
            _float(row.get("steady_peak_mb")),
            _float(row.get("peak_rss_mb")),
            _float(row.get("peak_cuda_mb")),
            _float(row.get("compile_peak_mb")),
            memory_change(plain),
            memory_words(plain),
        )


@dataclass(frozen=True)
class Problem:
    """An error a worker reported: its kind (load, compile, oom, crash, stall, usage, ...),
    the message, and the user's file and line when the error is in their code."""

    kind: str
    message: str
    file: str | None
    line: int | None
    traceback: str | None = field(repr=False)

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
        )


@dataclass(frozen=True)
class Row:
    """One arm at one batch size: step times (median over processes, ms), a script's start-up,
    throughput, the speedup and `verdict` against the baseline, compile cost, memory,
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
    startup_s: float | None
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
    data: Mapping[str, Any] = field(repr=False, compare=False, hash=False)

    @classmethod
    def of(cls, arm: str, row: Mapping[str, Any], baseline: bool) -> Row:
        plain = dict(row)
        return cls(
            arm=arm,
            batch_size=int(row["batch_size"]),
            status=str(row.get("status") or "?"),
            verdict=row_outcome(plain, baseline),
            partial=row.get("partial") is True,
            median_ms=_float(row.get("median_ms")),
            p10_ms=_float(row.get("p10_ms")),
            p90_ms=_float(row.get("p90_ms")),
            mean_ms=_float(row.get("mean_ms")),
            first_step_ms=_float(row.get("first_step_ms")),
            startup_s=_float((row.get("script") or {}).get("startup_s")),
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
            data=freeze(row),
        )


@dataclass(frozen=True)
class GraphBreak:
    """A distinct graph break (reason, file, line), how often it happened and at which batch
    sizes, with dynamo's explanation and hints."""

    reason: str | None
    explanation: str | None
    hints: tuple[str, ...]
    file: str | None
    line: int | None
    count: int
    batch_sizes: tuple[int, ...]

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> GraphBreak:
        return cls(
            _str(value.get("reason")),
            _str(value.get("explanation")),
            tuple(str(h) for h in value.get("hints") or ()),
            _str(value.get("file")),
            _int(value.get("line")),
            _int(value.get("count")) or 0,
            tuple(b for b in value.get("batch_sizes") or () if isinstance(b, int)),
        )


@dataclass(frozen=True)
class Recompile:
    """A recompile: where (batch size and step), why (the guard that failed), and its cost."""

    batch_size: int | None
    step: int | None
    reason: str | None
    frame: str | None
    file: str | None
    line: int | None
    seconds: float | None

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Recompile:
        return cls(
            _int(value.get("batch_size")),
            _int(value.get("step")),
            _str(value.get("reason")),
            _str(value.get("frame")),
            _str(value.get("file")),
            _int(value.get("line")),
            _float(value.get("seconds")),
        )


@dataclass(frozen=True)
class Arm:
    """One arm: eager, or torch.compile with a backend and options; its rows in batch-size
    order, its graph breaks and recompiles, its error, and (a compiled arm) its verdict
    sentence. `control_of`: an A/A control's twin."""

    index: int
    name: str
    backend: str
    compiled: bool
    rows: tuple[Row, ...]
    graph_breaks: tuple[GraphBreak, ...]
    recompiles: tuple[Recompile, ...]
    error: Problem | None
    verdict: str | None
    control_of: str | None
    options: Mapping[str, Any] = field(compare=False, hash=False)
    data: Mapping[str, Any] = field(repr=False, compare=False, hash=False)

    @classmethod
    def of(cls, arm: Mapping[str, Any], baseline: bool, verdict: str | None) -> Arm:
        name = str(arm.get("name"))
        results = [r for r in arm.get("results") or () if isinstance(r.get("batch_size"), int)]
        twins = {r.get("aa_of") for r in results} - {None}
        return cls(
            index=_int(arm.get("index")) or 0,
            name=name,
            backend=str(arm.get("backend") or "eager"),
            compiled=arm.get("backend") not in (None, "eager"),
            rows=tuple(Row.of(name, r, baseline) for r in results),
            graph_breaks=tuple(GraphBreak.of(g) for g in arm.get("graph_breaks") or ()),
            recompiles=tuple(Recompile.of(r) for r in arm.get("recompiles") or ()),
            error=Problem.of(arm.get("error")),
            verdict=verdict,
            control_of=str(next(iter(twins))) if twins else None,
            options=freeze(arm.get("options") or {}),
            data=freeze(arm),
        )

    def row(self, batch_size: int) -> Row:
        """This arm's row at `batch_size` (KeyError naming the batch sizes it has)."""
        for row in self.rows:
            if row.batch_size == batch_size:
                return row
        sizes = ", ".join(str(r.batch_size) for r in self.rows) or "none"
        raise KeyError(f"{self.name} has no row at batch size {batch_size} (it has: {sizes})")


@dataclass(frozen=True)
class Provenance:
    """Where a session's code and figures came from: the git commit (`commit` full, `short`),
    `branch` (None: detached) and `dirty` (None: unknown) of the repository holding the model
    file or script (all None outside one, or in sessions before schema 4), `file` relative to
    that repository's root, and the versions and device the run used (the first worker's)."""

    commit: str | None
    short: str | None
    branch: str | None
    dirty: bool | None
    repository: str | None
    file: str | None
    tcprof: str | None
    torch: str | None
    triton: str | None
    python: str | None
    device: str | None
    device_name: str | None

    @classmethod
    def of(cls, session: Mapping[str, Any]) -> Provenance:
        env = session.get("environment") or {}
        recorded = session.get("provenance") or {}
        git = recorded.get("git") or {}
        dirty = git.get("dirty")
        return cls(
            commit=_str(git.get("commit")),
            short=_str(git.get("short")),
            branch=_str(git.get("branch")),
            dirty=dirty if isinstance(dirty, bool) else None,
            repository=_str(git.get("root")),
            file=_str(git.get("path")),
            tcprof=_str(recorded.get("tcprof")),
            torch=_str(env.get("torch")),
            triton=_str(env.get("triton")),
            python=_str(env.get("python")),
            device=_str(env.get("device")),
            device_name=_str(env.get("device_name")),
        )


@dataclass(frozen=True)
class Series:
    """Which sessions measure the same thing (docs/session-format.md, `series`): equal `key`s
    group sessions into one series; `text` says it in one line, `parts` is what the key hashes."""

    key: str
    text: str
    parts: Mapping[str, Any] = field(compare=False, hash=False)

    @classmethod
    def of(cls, session: Mapping[str, Any]) -> Series | None:
        series = session.get("series")
        if not isinstance(series, Mapping) or not isinstance(series.get("key"), str):
            return None
        return cls(str(series["key"]), str(series.get("text") or ""), freeze(series.get("parts")))
