"""One arm x batch size row of session.json as a typed record: its fields, in the order
session.json has always written them, each as docs/session-format.md describes it (rows.py builds
it; the compile cost, the figures against the baseline and the A/A controls fill their parts)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tcprof.profiler.protocol.types import Json


@dataclass(kw_only=True)
class ResultRow:
    """One arm x batch size of session.json, each field as docs/session-format.md describes it.
    Fields are in the order session.json has always written them (to_dict keeps it)."""

    batch_size: int
    status: str  # ok | error | oom | stopped
    error: Json | None
    steps_planned: int | None = None  # measured steps asked of each process (config.steps)
    steps_measured: int | None = None  # the fewest any process measured (the one cut short)
    steps_per_process: list[int] | None = None  # each round's measured steps (blocks may grow)
    partial: bool = False  # a process was cut short: the figures are from fewer steps
    first_step_ms: float | None
    median_ms: float | None
    process_medians_ms: list[float | None]
    replicates: int
    p10_ms: float | None
    p90_ms: float | None
    mean_ms: float | None
    iqr_ms: float | None
    steps: int
    warmup_steps: int
    samples_per_s: float | None
    compile_s: float | None = None
    compile_cold_s: float | None = None
    compile_warm_s: float | None = None
    compile_portable_s: float | None = None
    # each cache state's rounds and their costs: which rounds compiled cold, warm, portable
    compile_rounds: dict[str, list[list[float]]] | None = None  # mode: [[round, seconds], ...]
    compile_cache: dict[str, dict[str, int]] | None = None
    compile_missing: dict[str, str | None] | None = None
    # torch's compile timer over round 1's compiles, where no steady step gave the cost: an arm
    # that failed after its first step keeps what its compile took, named as the timer's figure
    compile_timer_s: float | None = None
    break_even_cold_steps: float | None = None
    break_even_warm_steps: float | None = None
    # [low, high]: Fieller's, over the cost's rounds and the paired rounds' saving (break_even.py);
    # high None: within noise it may never pay back. No figure where the speedup does not hold
    break_even_cold_ci: list[float | None] | None = None
    break_even_warm_ci: list[float | None] | None = None
    dynamo_compile_s: float | None
    graphs: int | None
    recompiles: int
    graph_breaks: int
    fell_back: bool
    compile_status: str  # eager | compiled | recompiled | reused | not_run | fell_back
    compiled_while_measuring: bool
    steady_peak_mb: float | None
    steady_peak_method: str | None
    compile_peak_mb: float | None
    peak_rss_mb: float | None
    peak_cuda_mb: float | None
    peak_cuda_reserved_mb: float | None
    first_loss: float | None
    first_grad_norm: float | None
    last_loss: float | None
    speedup: float | None = None
    speedup_ci: list[float] | None = None  # the 95% interval: two or more rounds, else None
    # the simultaneous interval the verdict, colour and payback use: each of the run's m
    # comparisons at interval_level = 1 - 5%/m (Bonferroni; with one comparison, speedup_ci)
    speedup_ci_simultaneous: list[float] | None = None
    interval_level: float | None = None
    # one round: a bootstrap of one process's steps per arm. Not a 95% interval of the speedup
    # (process variation is left out); kept under its own name, never shown as one
    speedup_ci_one_process: list[float] | None = None
    speedup_se_log: float | None = None  # paired t: the standard error of the mean log ratio
    speedup_rounds: int | None = None  # the paired rounds the speedup rests on
    speedup_method: str | None = None
    interval_covers_processes: bool | None = None
    # faster | slower (the simultaneous interval excludes 1) | no_difference | no_interval
    verdict: str | None = None
    speedup_p: float | None = None  # two-sided p-value of "no difference" (paired t only)
    holds_after_adjustment: bool | None = None  # the verdict holds family-wise (comparisons)
    memory_ratio: float | None = None  # baseline / arm, training tensors' steady peak
    rss_ratio: float | None = None  # baseline / arm, the process's peak RSS (compiler included)
    break_even_steps: float | None = None
    break_even_ci: list[float | None] | None = None
    accuracy: Json | None
    noisy: bool
    unquiet_blocks: int
    contended_blocks: int  # blocks the rest of the machine kept busy while they ran
    blocks_measured: int
    compile_breakdown: Json | None = None
    profile: Json | None = None
    world_size: int = 1  # a distributed arm's ranks: batch_size is per rank
    global_batch_size: int | None = None  # batch_size x world_size
    ranks: list[Json] | None = None  # a distributed arm: each rank's own figures
    aa_of: str | None = None  # an A/A control: the arm it is an identical twin of
    aa_speedup: float | None = None  # ... and its speedup over that twin, truth 1.00
    aa_ci: list[float] | None = None
    # the harness itself differs: not equivalent within ±2% and a Holm-adjusted difference holds
    aa_flagged: bool | None = None
    script: Json | None = None  # a script's compute / own time split and loss curve (script_rows)
    # the cold round's compiles, each with when / what / how long, adding up to compile_cold_s
    compiles_list: list[Json] | None = None
    # torch's compile events in the first step against its wall-clock excess: the residual
    compile_check: dict[str, float] | None = None
    first_step_extra_s: float | None = None  # what the first step paid beyond compiling
    # blocks during which the machine's own speed moved (session/machine_speed.py), and the
    # fastest and slowest reading of its speed over the row's blocks (us of a fixed product)
    unsteady_blocks: int = 0
    reference_us: list[float] | None = None

    def to_dict(self) -> Json:
        """The row as session.json holds it (readers of saved sessions read these dicts)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
