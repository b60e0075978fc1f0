"""Per arm x batch size rows of session.json, derived from what the SessionFold folded: summary
statistics over processes, the speedup with an interval that covers process variation and
its verdict against the A/A control, cold / portable / warm compile cost with break-even,
steady training memory, the untimed accuracy verdict, and what TorchDynamo did at each batch
size (docs/methodology.md explains each figure)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tcprof.profiler.analysis import stats, stopping
from tcprof.profiler.analysis.break_even import break_even
from tcprof.profiler.analysis.profile_check import profile_mismatch
from tcprof.profiler.config import CUDAGRAPH_WARMUP, controls_of, records_cudagraphs
from tcprof.profiler.model.profile import Profile
from tcprof.profiler.model.rules import FAMILY_ALPHA
from tcprof.profiler.protocol.types import Json
from tcprof.profiler.session import machine_speed
from tcprof.profiler.session.family import family_level
from tcprof.profiler.session.rank_figures import compile_figures
from tcprof.profiler.session.script_rows import script_row, work_figures

if TYPE_CHECKING:
    from tcprof.profiler.session.records import ArmRecord, BatchResult, SessionRecord


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


def result_row(session: SessionRecord, arm: ArmRecord, res: BatchResult) -> Json:
    """One entry of arm['results'] in session.json."""
    return build_row(session, arm, res).to_dict()


def build_row(session: SessionRecord, arm: ArmRecord, res: BatchResult) -> ResultRow:
    s = stats.summarize(res.ms)
    processes = res.processes()
    process_medians = [stats.process_median(processes[r]) for r in sorted(processes)]
    median = stats.median_of_medians([processes[r] for r in sorted(processes)])
    compiled = arm.backend != "eager"
    done = res.done
    fell_back = _fell_back(session, arm, res)
    planned, measured, partial = measured_steps(session, processes)
    row = ResultRow(
        batch_size=res.batch_size,
        status="stopped" if partial and res.status == "ok" else res.status,
        error=res.error,
        steps_planned=planned,
        steps_measured=measured,
        steps_per_process=[sum(len(b) for b in processes[r]) for r in sorted(processes)],
        partial=partial,
        first_step_ms=res.first_step_ms,
        median_ms=median,
        process_medians_ms=process_medians,
        replicates=len(processes),
        p10_ms=s.p10 if s else None,
        p90_ms=s.p90 if s else None,
        mean_ms=s.mean if s else None,
        iqr_ms=s.iqr if s else None,
        steps=s.n if s else 0,
        warmup_steps=len(res.warmup_ms),
        samples_per_s=_samples_per_s(session, arm, res, median),
        dynamo_compile_s=done.get("dynamo_compile_s") if compiled else None,
        graphs=done.get("graphs", sum(1 for c in res.compiles if c.get("kind") == "first"))
        if compiled
        else None,
        recompiles=sum(1 for c in res.compiles if c.get("kind") == "recompile") if compiled else 0,
        graph_breaks=len(res.graph_break_events) if compiled else 0,
        fell_back=fell_back,
        compile_status="fell_back" if fell_back else _compile_status(compiled, res),
        compiled_while_measuring=any(c.get("step", 0) > len(res.warmup_ms) for c in res.compiles),
        steady_peak_mb=done.get("steady_peak_mb"),
        steady_peak_method=done.get("steady_method"),
        compile_peak_mb=(res.first_steps.get(0) or {}).get("compile_peak_mb"),
        peak_rss_mb=done.get("peak_rss_mb"),
        peak_cuda_mb=done.get("peak_cuda_mb"),
        peak_cuda_reserved_mb=done.get("peak_cuda_reserved_mb"),
        first_loss=res.first_loss,
        first_grad_norm=res.first_grad_norm,
        last_loss=done.get("last_loss"),
        accuracy=res.accuracy if compiled else None,
        noisy=bool(s and s.n >= 5 and s.relative_iqr > 0.1),
        unquiet_blocks=sum(1 for b in res.blocks if b.get("quiet") is False),
        contended_blocks=sum(1 for b in res.blocks if b.get("contended") is True),
        blocks_measured=len(res.blocks),
        unsteady_blocks=sum(1 for b in res.blocks if machine_speed.moved(b)),
        reference_us=machine_speed.reading_range(res.blocks),
        compile_breakdown=_compile_breakdown(res) if compiled else None,
        profile=_checked_profile(res),
        world_size=arm.world_size,
        global_batch_size=_global_batch(session, arm, res),
        ranks=rank_rows(arm, res, compiled) if arm.world_size > 1 else None,
    )
    if session.config.get("script"):
        unit = session.config["script"].get("unit")
        row = dataclasses.replace(row, script=script_row(res, median, unit))
    if compiled:
        row = dataclasses.replace(row, **compile_costs(session, arm, res))
        row = dataclasses.replace(row, **timer_stand_in(row, res))
    _compare_with_baseline(session, arm, res, row)
    return row


def _global_batch(session: SessionRecord, arm: ArmRecord, res: BatchResult) -> int | None:
    """The batch over every rank; None for a script whose phases are not batch sizes."""
    script = session.config.get("script")
    if script and script.get("sweep") != "batch_size":
        return None
    return res.batch_size * arm.world_size


def _samples_per_s(
    session: SessionRecord, arm: ArmRecord, res: BatchResult, median: float | None
) -> float | None:
    """The batch over the step time; a script's, the samples its steps consumed (its phases
    are not its batch: script_rows.work_figures)."""
    if session.config.get("script"):
        return work_figures(res, median, None)["samples_per_s"]
    if not median:
        return None
    return res.batch_size * arm.world_size / (median / 1000.0)


def measured_steps(
    session: SessionRecord, processes: dict[int, list[list[float]]]
) -> tuple[int | None, int | None, bool]:
    """(steps asked of each process, the fewest any process measured, whether one was cut
    short). A process that measured fewer steps than asked was stopped, timed out, crashed or
    interrupted mid-measurement: its figures stand but are partial. A block may run longer
    than asked (min_block_ms), never shorter, so fewer steps always means cut short."""
    planned = session.config.get("steps")
    planned = planned if isinstance(planned, int) and planned > 0 else None
    counts = [sum(len(block) for block in blocks) for blocks in processes.values()]
    measured = min(counts) if counts else 0
    return planned, measured, bool(counts) and planned is not None and measured < planned


def rank_rows(arm: ArmRecord, res: BatchResult, compiled: bool) -> list[Json]:
    """Each rank's own figures: its step times (all rounds), peak, and first-step excess (its
    compile, for a compiled arm: the first step less a steady step, round 0), and for a
    compiled arm what TorchDynamo did on that rank (rank_compiles.py)."""
    rows = []
    for rank in range(arm.world_size):
        who = arm.ranks.get(rank) or {}
        s = stats.summarize(res.rank_ms.get(rank) or [])
        first = (res.rank_first.get(rank) or {}).get("ms")
        cold = (first - s.median) / 1000.0 if compiled and s and first is not None else None
        rows.append(
            {
                "rank": rank,
                "node": who.get("node", 0),
                "host": who.get("host"),
                "median_ms": s.median if s else None,
                "p90_ms": s.p90 if s else None,
                "steps": s.n if s else 0,
                "steady_peak_mb": (res.rank_done.get(rank) or {}).get("steady_peak_mb"),
                "compile_cold_s": max(0.0, cold) if cold is not None else None,
                **(compile_figures(res.rank_insight.get(rank) or []) if compiled else {}),
            }
        )
    return rows


def _first_excess_ms(res: BatchResult, replicate: int, recording_steps: int = 0) -> float | None:
    """How much longer than a steady step the first step of one process took, plus the
    excess of the first `recording_steps` warm-up steps (CUDA graphs recorded there)."""
    excess = _excess_ms(res, replicate, recording_steps)
    if excess is None:
        return None
    return excess - 1000.0 * sum(
        compile_seconds(c) for c in res.compiles_of(replicate) if (c.get("step") or 0) > 0
    )


def _excess_ms(res: BatchResult, replicate: int, recording_steps: int = 0) -> float | None:
    """How much longer than a steady step the first step of one process took, plus the
    compiles later in that batch size (a recompile during warm-up or measurement), plus the
    excess of the first `recording_steps` warm-up steps (CUDA graphs recorded there)."""
    first = (res.first_steps.get(replicate) or {}).get("ms")
    blocks = res.processes().get(replicate)
    median = stats.process_median(blocks) if blocks else None
    warmup = res.warmup_by_rep.get(replicate, [])[recording_steps:]
    if median is None and warmup:
        # stopped before a block: the warm-up's steady steps stand in, so the compile already
        # measured is not dropped
        median = float(np.median(warmup))
    if first is None or median is None:
        return None
    later = sum(
        (c.get("seconds") or 0.0) + (c.get("backward_s") or 0.0)
        for c in res.compiles_of(replicate)
        if (c.get("step") or 0) > 0
    )
    recording = sum(
        max(0.0, ms - median) for ms in res.warmup_by_rep.get(replicate, [])[:recording_steps]
    )
    return first - median + later * 1000.0 + recording


def cudagraph_recording_steps(arm: ArmRecord, res: BatchResult) -> int:
    """The warm-up steps that record CUDA graphs: none unless the arm's mode uses them and
    Inductor did not skip them."""
    if not records_cudagraphs(arm.options.get("mode"), bool(res.cudagraph_skips)):
        return 0
    return CUDAGRAPH_WARMUP - 1


def _cache_counts(res: BatchResult, replicate: int) -> dict[str, int]:
    out = {"fx_hits": 0, "fx_misses": 0, "aot_hits": 0, "aot_misses": 0}
    keys = {"fx_hits": "fx_cache_hits", "fx_misses": "fx_cache_misses"}
    keys |= {"aot_hits": "aot_cache_hits", "aot_misses": "aot_cache_misses"}
    for c in res.compiles_of(replicate):
        for name, key in keys.items():
            out[name] += int(c.get(key) or 0)
    return out


def compile_seconds(c: dict[str, Any]) -> float:
    """One compile's time by torch's own events: its frame and its lazy backward compile."""
    return float(c.get("seconds") or 0.0) + float(c.get("backward_s") or 0.0)


def _in_first_step(c: dict[str, Any]) -> bool:
    """A compile inside the first step's timer (not before training, not a later step)."""
    return (c.get("step") or 0) == 0 and c.get("when") != "before_training"


def compile_list(res: BatchResult, replicate: int = 0) -> list[dict[str, Any]]:
    """Each compile of one process, in order: when it began, what triggered it, its time
    and share; the times add up to that process's compile cost."""
    compiles = res.compiles_of(replicate)
    total = sum(compile_seconds(c) for c in compiles)
    out = []
    for c in compiles:
        secs = compile_seconds(c)
        out.append(
            {
                "compile_id": c.get("compile_id"),
                "kind": c.get("kind"),
                "when": c.get("when") or ("first_step" if _in_first_step(c) else "step"),
                "at_step": c.get("at_step", c.get("step")),
                "frame": c.get("frame"),
                "file": c.get("file"),
                "line": c.get("line"),
                "site_file": c.get("site_file"),
                "site_line": c.get("site_line"),
                "grad_mode": c.get("grad_mode"),
                "shapes": c.get("shapes"),
                "reason": c.get("reason"),
                "seconds": secs,
                "share": secs / total if total > 0 else None,
            }
        )
    return out


def first_step_check(
    res: BatchResult, base: BatchResult | None, recording: int = 0
) -> dict[str, float] | None:
    """The cold round's compile time against a clock that is not torch's: the first step's
    wall-clock excess over a steady step (less the baseline's own) beside torch's compile
    events inside that step; the residual is what the first step paid beyond compiling (lazy
    initialisation, CUDA graph recording)."""
    excess = _first_excess_ms(res, 0, recording)
    if excess is None:
        return None
    base_excess = (_first_excess_ms(base, 0) if base else None) or 0.0
    excess = (excess - max(0.0, base_excess)) / 1000.0
    events = sum(compile_seconds(c) for c in res.compiles_of(0) if _in_first_step(c))
    return {"events_s": events, "excess_s": excess, "residual_s": excess - events}


def timed_by_events(arm: ArmRecord, replicate: int) -> bool:
    """Whether one process of the arm reported torch's compile events (at any batch size); a
    process with none (a session from a fake or a foreign worker) is costed by its first
    step's wall-clock excess, as sessions were before compile events were complete."""
    return any(r.compiles_of(replicate) for r in arm.results.values())


def compile_costs(session: SessionRecord, arm: ArmRecord, res: BatchResult) -> dict[str, Any]:
    """Compile cost per cache state: cold (round 0, an empty cache), portable (a fresh process
    loaded with the cold round's cache artifacts) and warm (the cold round's cache folder).
    A round's cost is the time its process spent compiling by torch's own compile events,
    wherever they happened (before training, in a step, in an evaluation); a round without a
    first step measured has none. What the first step paid beyond compiling is
    `first_step_extra_s` (first_step_check)."""
    base_arm = session.baseline
    base = base_arm.results.get(res.batch_size) if base_arm and base_arm is not arm else None
    costs: dict[str, list[float]] = {}
    rounds: dict[str, list[list[float]]] = {}
    caches: dict[str, dict[str, int]] = {}
    recording = cudagraph_recording_steps(arm, res)
    for rep in sorted(res.first_steps):
        if _excess_ms(res, rep, recording) is None:
            continue
        mode = arm.caches.get(rep, "cold" if rep == 0 else "warm")
        if timed_by_events(arm, rep):
            cost = sum(compile_seconds(c) for c in res.compiles_of(rep))
        else:  # no compile event from this process: the first step's wall-clock excess
            excess = _excess_ms(res, rep, recording) or 0.0
            base_excess = (_excess_ms(base, rep) if base else None) or 0.0
            cost = max(0.0, excess - max(0.0, base_excess)) / 1000.0
        costs.setdefault(mode, []).append(cost)
        rounds.setdefault(mode, []).append([rep, cost])
        caches.setdefault(mode, _cache_counts(res, rep))
    by_events = costs.get("cold") and timed_by_events(arm, 0)
    check = first_step_check(res, base, recording) if by_events else None
    cold = costs.get("cold", [None])[0]
    warm = float(np.median(costs["warm"])) if costs.get("warm") else None
    portable = costs.get("portable", [None])[0]
    first = cold if cold is not None else next(iter(costs.values()), [None])[0]
    replicates = int(session.config.get("replicates") or 1)
    missing: dict[str, str] = {}
    if cold is None:
        missing["cold"] = (
            "--warm-cache: compiled against the user's own caches"
            if session.config.get("warm_cache")
            else "no first step was measured"
        )
    if warm is None:
        missing["warm"] = (
            "one replicate: no round compiled against a warm cache"
            if replicates < 2 and not session.config.get("warm_cache")
            else "no warm round was measured"
        )
    if portable is None:
        saved = [e for e in arm.cache_events if e.get("event") == "saved"]
        missing["portable"] = (
            "needs 3 or more replicates"
            if replicates < 3
            else (saved[0].get("reason") if saved and not saved[0].get("saved") else None)
            or "no portable round was measured"
        )
    return {
        "compile_s": first,
        "compile_check": check,
        "first_step_extra_s": max(0.0, check["residual_s"]) if check else None,
        "compiles_list": compile_list(res) if res.compiles else None,
        "compile_cold_s": cold,
        "compile_warm_s": warm,
        "compile_portable_s": portable,
        "compile_rounds": rounds,
        "compile_cache": caches,
        "compile_missing": missing,
    }


def timer_stand_in(row: ResultRow, res: BatchResult) -> dict[str, Any]:
    """Where the first step ran but no steady step did (the arm failed in its warm-up), the
    cost cannot be computed; torch's compile timer for those compiles stands in, under its own
    name, so the row keeps what the compile took rather than '-'."""
    if row.compile_cold_s is not None or row.compile_s is not None or 0 not in res.first_steps:
        return {}
    timed = [c["seconds"] for c in res.compiles if isinstance(c.get("seconds"), (int, float))]
    if not timed:
        return {}
    missing = {**(row.compile_missing or {}), "cold": "no steady step was measured"}
    return {"compile_timer_s": float(sum(timed)), "compile_missing": missing}


def _fell_back(session: SessionRecord, arm: ArmRecord, res: BatchResult) -> bool:
    """Hitting the recompile limit makes every later new shape run eagerly, silently."""
    if res.fallbacks or any(c.get("fail_type") for c in res.compiles):
        return True  # the recompile limit, or a compile that failed under suppress_errors
    earlier = session.ordered_batch_sizes(arm)
    earlier = earlier[: earlier.index(res.batch_size)] if res.batch_size in earlier else []
    return any(arm.results[b].fallbacks for b in earlier) and not res.compiles


def _compare_with_baseline(
    session: SessionRecord, arm: ArmRecord, res: BatchResult, row: ResultRow
) -> None:
    base_arm = session.baseline
    if base_arm is None or arm is base_arm:
        return
    base = base_arm.results.get(res.batch_size)
    if base is None:
        return
    twins = controls_of(session.config or {})
    if arm.name in twins:
        _aa(session, arm, twins[arm.name], row)
    interval = speedup_interval(session, base, res)
    if interval:
        row.speedup, row.speedup_method = interval.speedup, interval.method
        row.speedup_p, row.speedup_se_log = interval.p_value, interval.se_log
        row.speedup_rounds = interval.processes
        row.interval_covers_processes = interval.covers_process_variation
        if interval.covers_process_variation:
            row.speedup_ci = [interval.low, interval.high]
            controls = [] if arm.name in twins else _control_intervals(session, arm, res.batch_size)
            if arm.name in twins:  # a control is judged by equivalence (control_family)
                row.verdict = _verdict(interval, controls)
            else:
                row.interval_level = family_level(session)
                joint = stats.at_level(interval, row.interval_level)
                row.speedup_ci_simultaneous = [joint.low, joint.high]
                row.verdict = _verdict(joint, controls)
        else:  # one round: no interval, so neither faster nor slower
            row.speedup_ci_one_process = [interval.low, interval.high]
            row.verdict = stats.NO_INTERVAL
    base_peak = base.done.get("steady_peak_mb")
    arm_peak = res.done.get("steady_peak_mb")
    if base_peak and arm_peak:
        row.memory_ratio = base_peak / arm_peak
    base_rss, arm_rss = base.done.get("peak_rss_mb"), res.done.get("peak_rss_mb")
    if base_rss and arm_rss:
        row.rss_ratio = base_rss / arm_rss
    _break_even(base, res, row)


def _break_even(base: BatchResult, res: BatchResult, row: ResultRow) -> None:
    """Break-even per cache state with Fieller's interval over the rounds that compiled in
    that state and the paired rounds' saving per step (analysis/break_even.py). A figure only
    where the speedup holds (verdict faster, from the simultaneous interval) and at its level;
    slower never pays back; within noise or one round: none (the views say which)."""
    if row.verdict not in ("faster", "slower"):
        return
    base_p, arm_p = base.processes(), res.processes()
    paired = [r for r in sorted(arm_p) if r in base_p]
    base_ms = [stats.process_median(base_p[r]) for r in paired]
    arm_ms = [stats.process_median(arm_p[r]) for r in paired]
    pairs = [(b, a) for b, a in zip(base_ms, arm_ms, strict=True) if b and a]
    rounds = row.compile_rounds or {}
    first_mode = "cold" if rounds.get("cold") else next(iter(rounds), None)
    for mode, point, ci in (
        ("cold", "break_even_cold_steps", "break_even_cold_ci"),
        ("warm", "break_even_warm_steps", "break_even_warm_ci"),
        (first_mode, "break_even_steps", "break_even_ci"),
    ):
        costs = [cost for _, cost in rounds.get(mode or "", [])]
        if mode != "warm":  # the first step's own extra too (measured in round 0)
            costs = [c + (row.first_step_extra_s or 0.0) for c in costs]
        if row.verdict == "slower" and costs:
            setattr(row, point, None)  # never pays back
            continue
        found = break_even(
            costs, [b for b, _ in pairs], [a for _, a in pairs], row.interval_level or 0.95
        )
        if found is None:
            continue
        setattr(row, point, found.steps)
        if found.steps is not None:
            setattr(row, ci, [found.low, found.high])


def _verdict(interval: stats.SpeedupInterval, controls: list[stats.SpeedupInterval]) -> str:
    """Within noise when the interval contains 1.0 or lies in any flagged control's band
    (`controls` holds only flagged ones: _control_intervals)."""
    verdicts = {stats.verdict(interval, c) for c in controls} or {stats.verdict(interval)}
    return "no_difference" if "no_difference" in verdicts else verdicts.pop()


def speedup_interval(
    session: SessionRecord, base: BatchResult, res: BatchResult, level: float | None = None
) -> stats.SpeedupInterval | None:
    """The arm's speedup over the baseline, its processes paired with the baseline's by round;
    at the run's level (95%, or adjusted for a run that stops when settled) unless given."""
    base_p, arm_p = base.processes(), res.processes()
    rounds = range(max([*base_p, *arm_p], default=-1) + 1)
    rng = np.random.default_rng(int(session.config.get("seed", 0)) + res.batch_size)
    if level is None:
        level = stopping.level_of(session.config or {})
    return stats.speedup_interval(
        [base_p.get(r) for r in rounds], [arm_p.get(r) for r in rounds], rng=rng, level=level
    )


def _aa(session: SessionRecord, arm: ArmRecord, twin_name: str, row: ResultRow) -> None:
    """A control's A/A figures: its speedup over its identical twin, whose truth is 1.00, and
    whether the run's controls, judged together (control_family), flag it."""
    row.aa_of = twin_name
    found = control_family(session).get((arm.name, row.batch_size))
    if found:
        interval, flagged = found
        row.aa_speedup = interval.speedup
        row.aa_ci = [interval.low, interval.high] if interval.covers_process_variation else None
        row.aa_flagged = bool(flagged)


def control_family(
    session: SessionRecord,
) -> dict[tuple[str, int], tuple[stats.SpeedupInterval, bool | None]]:
    """(control arm, batch size) -> its interval over its twin and its flag: every A/A
    interval of the run is one family (stats.control_flags: equivalence within the margin
    fails and a Holm-adjusted difference holds), so more controls and batch sizes do not
    flag a flawless harness more often."""
    keys, intervals = [], []
    for name, twin_name in controls_of(session.config or {}).items():
        control = next((a for a in session.arms if a.name == name), None)
        twin = next((a for a in session.arms if a.name == twin_name), None)
        if control is None or twin is None:
            continue
        for batch_size in session.ordered_batch_sizes(control):
            twin_res, res = twin.results.get(batch_size), control.results.get(batch_size)
            interval = speedup_interval(session, twin_res, res) if twin_res and res else None
            if interval:
                keys.append((name, batch_size))
                intervals.append(interval)
    flags = stats.control_flags(intervals, FAMILY_ALPHA)
    return {k: (i, f) for k, i, f in zip(keys, intervals, flags, strict=True)}


def _control_intervals(
    session: SessionRecord, arm: ArmRecord, batch_size: int
) -> list[stats.SpeedupInterval]:
    """The flagged A/A intervals that bound an arm's noise: the eager control's for every arm,
    the compiled control's for compiled arms (each against its own twin). An unflagged control
    is no known bias, so it gives no band."""
    out = []
    family = control_family(session)
    for name, twin_name in controls_of(session.config or {}).items():
        twin = next((a for a in session.arms if a.name == twin_name), None)
        if twin is None or name == arm.name:
            continue
        if twin.backend != "eager" and arm.backend == "eager":
            continue  # a compiled twin's bias says nothing about an eager arm
        found = family.get((name, batch_size))
        if found and found[1]:
            out.append(found[0])
    return out


def _checked_profile(res: BatchResult) -> Json | None:
    """The torch.profiler pass with, when it does not describe the measured step, why."""
    if not res.profile:
        return res.profile
    blocks = list(res.processes().values())
    median = stats.median_of_medians(blocks) if blocks else None
    return {**res.profile, "mismatch": profile_mismatch(Profile.of(res.profile), median)}


def _compile_breakdown(res: BatchResult) -> dict[str, Any]:
    """dynamo's own compile-time metrics summed over this batch size's compiles."""

    def total(key: str) -> float | None:
        values = [v for c in res.compiles if (v := c.get(key)) is not None]
        return float(sum(values)) if values else None

    hits, misses = total("fx_cache_hits"), total("fx_cache_misses")
    return {
        "compiles": len(res.compiles),
        "dynamo_s": total("seconds"),
        "backend_s": total("backend_s"),
        "inductor_s": total("inductor_s"),
        "code_gen_s": total("code_gen_s"),
        "backward_s": total("backward_s"),
        "fx_cache_hits": int(hits) if hits is not None else None,
        "fx_cache_misses": int(misses) if misses is not None else None,
        "fx_cache": None
        if not (hits or misses)
        else ("hit" if hits and not misses else "miss" if misses and not hits else "partial"),
    }


def _compile_status(compiled: bool, res: BatchResult) -> str:
    """For the batch-size matrix: what dynamo did at this batch size."""
    if not compiled:
        return "eager"
    if res.fallbacks:
        return "fell_back"
    kinds = {c.get("kind") for c in res.compiles}
    if "recompile" in kinds:
        return "recompiled"
    if "first" in kinds:
        return "compiled"
    return "reused" if res.first_step_ms is not None else "not_run"


def dedupe_graph_breaks(arm: ArmRecord) -> list[dict[str, Any]]:
    """Each distinct break (reason, file, line) once, with its count and batch sizes."""
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for bs, res in arm.results.items():
        for gb in res.graph_break_events:
            key = (gb.get("reason"), gb.get("file"), gb.get("line"))
            entry = merged.setdefault(
                key,
                {
                    "reason": gb.get("reason"),
                    "explanation": gb.get("explanation"),
                    "hints": gb.get("hints") or [],
                    "file": gb.get("file"),
                    "line": gb.get("line"),
                    "count": 0,
                    "batch_sizes": [],
                },
            )
            entry["count"] += 1
            if bs not in entry["batch_sizes"]:
                entry["batch_sizes"].append(bs)
    return list(merged.values())
