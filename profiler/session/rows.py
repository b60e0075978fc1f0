"""Per arm x batch size rows of session.json, derived from what the SessionFold folded: summary
statistics over processes, steady training memory, the untimed accuracy verdict, each rank's
own figures, and what TorchDynamo did at each batch size; the compile cost (compile_cost.py),
the figures against the baseline (against_baseline.py) and a script's (script_rows.py) are
added to the row here (docs/methodology.md explains each figure)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from tcprof.profiler.analysis import stats
from tcprof.profiler.analysis.profile_check import profile_mismatch
from tcprof.profiler.model.profile import Profile
from tcprof.profiler.protocol.types import Json
from tcprof.profiler.session import machine_speed
from tcprof.profiler.session.against_baseline import compare_with_baseline
from tcprof.profiler.session.compile_cost import compile_costs, timer_stand_in
from tcprof.profiler.session.rank_figures import compile_figures
from tcprof.profiler.session.result_row import ResultRow
from tcprof.profiler.session.script_rows import script_row, work_figures

if TYPE_CHECKING:
    from tcprof.profiler.session.records import ArmRecord, BatchResult, SessionRecord


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
    compare_with_baseline(session, arm, res, row)
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


def _fell_back(session: SessionRecord, arm: ArmRecord, res: BatchResult) -> bool:
    """Hitting the recompile limit makes every later new shape run eagerly, silently."""
    if res.fallbacks or any(c.get("fail_type") for c in res.compiles):
        return True  # the recompile limit, or a compile that failed under suppress_errors
    earlier = session.ordered_batch_sizes(arm)
    earlier = earlier[: earlier.index(res.batch_size)] if res.batch_size in earlier else []
    return any(arm.results[b].fallbacks for b in earlier) and not res.compiles


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
