"""A compiled arm's compile cost at one batch size, per cache state: cold, portable and warm
rounds costed by torch's own compile events (or, from a worker that sent none, the first step's
wall-clock excess), the first step's check against a clock that is not torch's, each compile of
the cold round listed, and torch's timer standing in where no steady step gave the cost
(docs/methodology.md, "Compile cost")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tcprof.profiler.analysis import stats
from tcprof.profiler.config import CUDAGRAPH_WARMUP, records_cudagraphs

if TYPE_CHECKING:
    from tcprof.profiler.session.records import ArmRecord, BatchResult, SessionRecord
    from tcprof.profiler.session.result_row import ResultRow


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
            "not asked for (--portable-round)"
            if session.config.get("portable_round") is False
            else "needs 3 or more replicates"
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
