"""Per arm x batch size rows of session.json, derived from what the Session folded: summary
statistics, speedup with its CI, compile latency and breakdown, break-even steps, memory
ratio, accuracy against the baseline, and what TorchDynamo did at each batch size."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from profiler import stats

if TYPE_CHECKING:
    from profiler.session import ArmRecord, BatchResult, Session


def result_row(session: Session, arm: ArmRecord, res: BatchResult) -> dict[str, Any]:
    """One entry of arm['results'] in session.json."""
    s = stats.summarize(res.ms)
    compiled = arm.backend != "eager"
    done = res.done
    row: dict[str, Any] = {
        "batch_size": res.batch_size,
        "status": res.status,
        "error": res.error,
        "first_step_ms": res.first_step_ms,
        "median_ms": s.median if s else None,
        "p10_ms": s.p10 if s else None,
        "p90_ms": s.p90 if s else None,
        "mean_ms": s.mean if s else None,
        "iqr_ms": s.iqr if s else None,
        "steps": s.n if s else 0,
        "warmup_steps": len(res.warmup_ms),
        "samples_per_s": res.batch_size / (s.median / 1000.0) if s and s.median > 0 else None,
        "compile_s": None,
        "dynamo_compile_s": done.get("dynamo_compile_s") if compiled else None,
        "graphs": done.get("graphs", sum(1 for c in res.compiles if c.get("kind") == "first"))
        if compiled
        else None,
        "recompiles": sum(1 for c in res.compiles if c.get("kind") == "recompile")
        if compiled
        else 0,
        "graph_breaks": len(res.graph_break_events) if compiled else 0,
        "fell_back": _fell_back(session, arm, res),
        "compile_status": _compile_status(compiled, res),
        "compiled_while_measuring": any(
            c.get("step", 0) > len(res.warmup_ms) for c in res.compiles
        ),
        "peak_rss_mb": done.get("peak_rss_mb"),
        "peak_cuda_mb": done.get("peak_cuda_mb"),
        "peak_cuda_reserved_mb": done.get("peak_cuda_reserved_mb"),
        "first_loss": res.first_loss,
        "first_grad_norm": res.first_grad_norm,
        "last_loss": done.get("last_loss"),
        "speedup": None,
        "speedup_ci": None,
        "memory_ratio": None,
        "break_even_steps": None,
        "accuracy": None,
        "noisy": bool(s and s.n >= 5 and s.relative_iqr > 0.1),
    }
    if row["fell_back"]:
        row["compile_status"] = "fell_back"
    row["compile_breakdown"] = _compile_breakdown(res) if compiled else None
    row["profile"] = res.profile
    if compiled and res.first_step_ms is not None and s:
        later = sum((c.get("seconds") or 0.0) for c in res.compile_steps_after_first())
        row["compile_s"] = max(0.0, res.first_step_ms - s.median) / 1000.0 + later
    _compare_with_baseline(session, arm, res, row)
    return row


def _fell_back(session: Session, arm: ArmRecord, res: BatchResult) -> bool:
    """Hitting the recompile limit makes every later new shape run eagerly, silently."""
    if res.fallbacks or any(c.get("fail_type") for c in res.compiles):
        return True  # the recompile limit, or a compile that failed under suppress_errors
    earlier = session.ordered_batch_sizes(arm)
    earlier = earlier[: earlier.index(res.batch_size)] if res.batch_size in earlier else []
    return any(arm.results[b].fallbacks for b in earlier) and not res.compiles


def _compare_with_baseline(
    session: Session, arm: ArmRecord, res: BatchResult, row: dict[str, Any]
) -> None:
    base_arm = session.baseline
    if base_arm is None or arm is base_arm:
        return
    base = base_arm.results.get(res.batch_size)
    if base is None:
        return
    rng = np.random.default_rng(int(session.config.get("seed", 0)) + res.batch_size)
    ci = stats.speedup_ci(base.ms, res.ms, rng=rng)
    if ci:
        row["speedup"], row["speedup_ci"] = ci[0], [ci[1], ci[2]]
    base_peak = base.done.get("peak_cuda_mb") or base.done.get("peak_rss_mb")
    arm_peak = res.done.get("peak_cuda_mb") or res.done.get("peak_rss_mb")
    if base_peak and arm_peak:
        row["memory_ratio"] = base_peak / arm_peak
    base_summary, arm_summary = stats.summarize(base.ms), stats.summarize(res.ms)
    if base_summary and arm_summary:
        row["break_even_steps"] = stats.break_even_steps(
            row["compile_s"], base_summary.median, arm_summary.median
        )
    rtol = float(session.config.get("accuracy_rtol", 1e-3))
    atol = float(session.config.get("accuracy_atol", 1e-5))
    loss_ok = stats.within_tolerance(res.first_loss, base.first_loss, rtol, atol)
    grad_ok = stats.within_tolerance(res.first_grad_norm, base.first_grad_norm, rtol, atol)
    checks = [c for c in (loss_ok, grad_ok) if c is not None]
    row["accuracy"] = {
        "status": ("pass" if all(checks) else "fail") if checks else "n/a",
        "loss": res.first_loss,
        "baseline_loss": base.first_loss,
        "grad_norm": res.first_grad_norm,
        "baseline_grad_norm": base.first_grad_norm,
        "rtol": rtol,
        "atol": atol,
    }


def _compile_breakdown(res: BatchResult) -> dict[str, Any]:
    """dynamo's own compile-time metrics summed over this batch size's compiles."""

    def total(key: str) -> float | None:
        values = [c.get(key) for c in res.compiles if c.get(key) is not None]
        return float(sum(values)) if values else None

    hits, misses = total("fx_cache_hits"), total("fx_cache_misses")
    return {
        "compiles": len(res.compiles),
        "dynamo_s": total("seconds"),
        "backend_s": total("backend_s"),
        "inductor_s": total("inductor_s"),
        "code_gen_s": total("code_gen_s"),
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
    merged: dict[tuple, dict[str, Any]] = {}
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
