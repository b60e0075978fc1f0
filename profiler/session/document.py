"""session.json derived from a session's records: each arm's dict with its rows, graph breaks,
recompiles and advice, the raw samples, and the whole document (docs/session-format.md).
"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.analysis.advice import arm_advice
from tcprof.profiler.analysis.advice_item import SavedAdvice
from tcprof.profiler.analysis.ladder import ladder_summary
from tcprof.profiler.analysis.regional import regional_tradeoffs
from tcprof.profiler.analysis.schedule import schedule_summary
from tcprof.profiler.analysis.stopping import level_of
from tcprof.profiler.analysis.timeline import build_timeline
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.series import series_of
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.wire import jsonsafe
from tcprof.profiler.session.family import apply_comparisons
from tcprof.profiler.session.graph_breaks import dedupe_graph_breaks
from tcprof.profiler.session.records import ArmRecord, SessionRecord
from tcprof.profiler.session.rows import result_row
from tcprof.profiler.session.script_rows import script_arm

ARM_ENVIRONMENT = ("python", "executable", "torch", "triton", "cuda", "device", "device_name")
_COMPILE_CONTEXT = ("when", "at_step", "grad_mode", "site_file", "site_line", "shapes")


def arm_dict(session: SessionRecord, arm: ArmRecord) -> dict[str, Any]:
    results = [result_row(session, arm, arm.results[bs]) for bs in session.ordered_batch_sizes(arm)]
    out = {
        "index": arm.index,
        "name": arm.name,
        "backend": arm.backend,
        "options": arm.options,
        "error": arm.error,
        "model": arm.model,
        "exit": arm.exit,
        "pid": (arm.environment or {}).get("pid"),
        "python": interpreter(arm),
        "environment": arm_environment(arm),
        "world_size": arm.world_size,
        "results": results,
        "graph_breaks": dedupe_graph_breaks(arm),
        "recompiles": [
            {
                **{
                    k: c.get(k)
                    for k in ("batch_size", "step", "reason", "frame", "file", "line", "seconds")
                },
                # when it began and the user's call (sessions before them have none)
                **{k: c[k] for k in _COMPILE_CONTEXT if k in c},
            }
            for bs in session.ordered_batch_sizes(arm)
            for c in arm.results[bs].compiles
            if c.get("kind") == "recompile"
        ],
        "fallbacks": [
            f for bs in session.ordered_batch_sizes(arm) for f in arm.results[bs].fallbacks
        ],
        "cudagraph_skips": [
            s for bs in session.ordered_batch_sizes(arm) for s in arm.results[bs].cudagraph_skips
        ],
        "explain": arm.explain,
        "artifacts": arm.artifacts,
        "caches": {str(k): v for k, v in sorted(arm.caches.items())},
        "cache_events": arm.cache_events,
    }
    out["advice"] = arm_advice_of(session, out)
    if session.config.get("script"):
        out["script"] = script_arm(arm)
    return out


def interpreter(arm: ArmRecord) -> dict[str, Any] | None:
    """The interpreter the arm's workers ran (its own, `python=`, or the engine's), from its
    first process's hello: so a torch upgrade measured side by side says which torch is which."""
    env = arm.environment
    if not env:
        return None
    return {
        "path": env.get("executable"),
        "version": env.get("python"),
        "torch": env.get("torch"),
        "triton": env.get("triton"),
    }


def arm_environment(arm: ArmRecord) -> dict[str, Any] | None:
    """The arm's own interpreter, versions and device (its first process's hello): an arm may
    run under another interpreter than the session's first."""
    env = arm.environment or {}
    return {k: env.get(k) for k in ARM_ENVIRONMENT} if env else None


def arm_advice_of(session: SessionRecord, arm: dict[str, Any]) -> list[SavedAdvice]:
    """Recompile advice from what the arm recorded (see profiler.advice)."""
    source = (session.config or {}).get("source") or {}
    limits = [f.get("limit") for f in arm.get("fallbacks") or [] if f.get("limit")]
    typed = Arm.of(arm, False, None)  # the arm being written, read as the model reads it
    return arm_advice(
        typed, session.batch_sizes(), source.get("path"), limits[0] if limits else None
    )


def samples(session: SessionRecord) -> list[dict[str, Any]]:
    """Raw per-step data per arm x batch size (session.json's `samples`)."""
    return [
        {
            "arm": arm.name,
            "batch_size": res.batch_size,
            "warmup_ms": res.warmup_ms,
            "ms": res.ms,
            "blocks": [[rep, block, len(ms)] for (rep, block), ms in res.block_ms.items()],
            "memory": res.memory,
            **({"own_ms": res.own_ms, "loss": res.loss} if session.config.get("script") else {}),
        }
        for arm in session.arms
        for res in (arm.results[b] for b in session.ordered_batch_sizes(arm))
    ]


def session_document(session: SessionRecord, include_samples: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema_version": session.schema_version,
        "status": session.status,
        "started_at": session.started_at,
        "ended_at": session.ended_at,
        "environment": session.environment,
        "config": session.config,
        "baseline": session.baseline.name if session.baseline else None,
        "rounds": session.rounds,
        "stopping": session.stopping,
        "schedule": schedule_summary(session.rounds, [a.name for a in session.arms]),
        "arms": [arm_dict(session, a) for a in session.arms],
        "errors": session.errors,
    }
    if session.provenance is not None:  # events of an older run have none
        out["provenance"] = session.provenance
    if session.marks:  # where the run's time went (none: a session rebuilt without its events)
        out["timeline"] = build_timeline(session.marks, [a.name for a in session.arms])

    if session.seeding is not None:  # a run before rounds had their own seeds has none
        out["seeding"] = session.seeding
    out["series"] = series_of(out)
    # each interval's level: Bonferroni over the comparisons, of what the run's looks leave
    # (5%, or less where it stopped when settled: analysis/stopping.py)
    run_alpha = 1.0 - level_of(session.config or {})
    out["comparisons"] = apply_comparisons(out["arms"], out["baseline"], run_alpha)
    built = SessionModel.from_json(out)  # the document so far, as its readers will read it
    out["regional"] = regional_tradeoffs(built)  # [] unless a regional arm has a whole twin
    out["ladder"] = ladder_summary(built)  # None unless the arms are the backend ladder
    if include_samples:
        out["samples"] = samples(session)
        out["logs"] = session.logs
    return jsonsafe(out)
