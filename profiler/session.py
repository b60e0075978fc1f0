"""The Session: everything a run produced, folded from its events (no torch, no Qt).

The GUI, the CLI and the reports read it; `to_dict()` is the documented session.json format
(docs/session-format.md), and `Session.from_events()` rebuilds one from an events.jsonl, which
is how an interrupted run keeps what it measured.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from profiler import stats
from profiler.events import decode, jsonsafe

SCHEMA_VERSION = 1
MAX_LOG_LINES = 20_000


@dataclass
class BatchResult:
    batch_size: int
    status: str = "running"  # running, ok, error, oom, skipped
    error: dict[str, Any] | None = None
    first_step_ms: float | None = None
    first_loss: float | None = None
    first_grad_norm: float | None = None
    warmup_ms: list[float] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    memory: list[list[float | None]] = field(
        default_factory=list
    )  # [step, rss, cuda alloc, cuda reserved]
    compiles: list[dict[str, Any]] = field(default_factory=list)
    graph_break_events: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: list[dict[str, Any]] = field(default_factory=list)
    done: dict[str, Any] = field(default_factory=dict)  # the worker's bs_done fields
    profile: dict[str, Any] | None = None  # the torch.profiler pass: path, top_ops

    def compile_steps_after_first(self) -> list[dict[str, Any]]:
        return [c for c in self.compiles if (c.get("step") or 0) > 0]


@dataclass
class ArmRecord:
    index: int
    name: str
    backend: str
    options: dict[str, Any]
    error: dict[str, Any] | None = None
    environment: dict[str, Any] | None = None
    model: dict[str, Any] | None = None
    exit: dict[str, Any] | None = None
    results: dict[int, BatchResult] = field(default_factory=dict)
    phase: str | None = None
    phase_batch_size: int | None = None
    explain: dict[str, Any] | None = None
    artifacts: list[dict[str, Any]] = field(default_factory=list)

    def result(self, batch_size: int) -> BatchResult:
        if batch_size not in self.results:
            self.results[batch_size] = BatchResult(batch_size)
        return self.results[batch_size]


class Session:
    def __init__(self, config: dict[str, Any] | None = None) -> None:
        self.schema_version = SCHEMA_VERSION
        self.config: dict[str, Any] = config or {}
        self.arms: list[ArmRecord] = []
        self.environment: dict[str, Any] | None = None
        self.status = "running"
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self.logs: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        if config:
            self._init_arms(config)

    def _init_arms(self, config: dict[str, Any]) -> None:
        from profiler.config import ArmSpec

        self.arms = []
        for i, a in enumerate(config.get("arms", [])):
            spec = ArmSpec.from_dict(a)
            self.arms.append(ArmRecord(i, spec.name, spec.backend, spec.options()))

    # -- folding ------------------------------------------------------------------------------
    def apply(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(event)

    def _arm(self, event: dict[str, Any]) -> ArmRecord | None:
        idx = event.get("arm")
        if isinstance(idx, int) and 0 <= idx < len(self.arms):
            return self.arms[idx]
        return None

    def _on_run_start(self, e: dict[str, Any]) -> None:
        self.config = e["config"]
        self.started_at = e.get("wall_time", time.time())
        self._init_arms(self.config)

    def _on_run_end(self, e: dict[str, Any]) -> None:
        self.status = e.get("status", "completed")
        self.ended_at = e.get("wall_time", time.time())
        for arm in self.arms:
            for res in arm.results.values():
                if res.status == "running":
                    res.status = "error" if res.error else ("ok" if res.ms else "stopped")

    def _on_hello(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        env = {k: v for k, v in e.items() if k not in ("type", "arm", "t")}
        if arm:
            arm.environment = env
        if self.environment is None:
            self.environment = env

    def _on_loaded(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.model = {k: v for k, v in e.items() if k not in ("type", "arm", "t")}

    def _on_phase(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.phase, arm.phase_batch_size = e.get("phase"), e.get("batch_size")
            if e.get("batch_size") is not None:
                arm.result(e["batch_size"])

    def _on_first_step(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            res = arm.result(e["batch_size"])
            res.first_step_ms, res.first_loss, res.first_grad_norm = (
                e.get("ms"),
                e.get("loss"),
                e.get("grad_norm"),
            )

    def _on_steps(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            res = arm.result(e["batch_size"])
            (res.warmup_ms if e.get("phase") == "warmup" else res.ms).extend(e["ms"])

    def _on_memory(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.result(e["batch_size"]).memory.append(
                [e.get("step"), e.get("rss_mb"), e.get("cuda_alloc_mb"), e.get("cuda_reserved_mb")]
            )

    def _on_compile(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.result(e["batch_size"]).compiles.append(_strip(e))

    def _on_graph_break(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.result(e["batch_size"]).graph_break_events.append(_strip(e))

    def _on_fallback(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.result(e["batch_size"]).fallbacks.append(_strip(e))

    def _on_bs_done(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            res = arm.result(e["batch_size"])
            res.done = _strip(e)
            if res.status == "running":
                res.status = "ok"

    def _on_error(self, e: dict[str, Any]) -> None:
        err = _strip(e)
        self.errors.append(err)
        arm = self._arm(e)
        if arm is None:
            return
        brief = {
            "kind": e.get("kind"),
            "message": e.get("message"),
            "file": e.get("file"),
            "line": e.get("line"),
        }
        bs = e.get("batch_size")
        if bs is not None:
            res = arm.result(bs)
            res.status = "oom" if e.get("kind") == "oom" else "error"
            res.error = brief
        if e.get("fatal", True) and arm.error is None:
            arm.error = brief

    def _on_profile(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.result(e["batch_size"]).profile = _strip(e)

    def _on_explain(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.explain = _strip(e)

    def _on_artifact(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.artifacts.append(_strip(e))

    def _on_worker_exit(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.exit = _strip(e)

    def _on_log(self, e: dict[str, Any]) -> None:
        if len(self.logs) < MAX_LOG_LINES:
            self.logs.append(_strip(e, keep_arm=True))

    # -- derived results ----------------------------------------------------------------------
    @property
    def baseline(self) -> ArmRecord | None:
        return self.arms[0] if self.arms else None

    def batch_sizes(self) -> list[int]:
        return list(self.config.get("batch_sizes", []))

    def result_row(self, arm: ArmRecord, res: BatchResult) -> dict[str, Any]:
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
            "fell_back": self._fell_back(arm, res),
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
        self._compare_with_baseline(arm, res, row)
        return row

    def _fell_back(self, arm: ArmRecord, res: BatchResult) -> bool:
        """Hitting the recompile limit makes every later new shape run eagerly, silently."""
        if res.fallbacks:
            return True
        earlier = self._ordered(arm)
        earlier = earlier[: earlier.index(res.batch_size)] if res.batch_size in earlier else []
        return any(arm.results[b].fallbacks for b in earlier) and not res.compiles

    def _compare_with_baseline(self, arm: ArmRecord, res: BatchResult, row: dict[str, Any]) -> None:
        base_arm = self.baseline
        if base_arm is None or arm is base_arm:
            return
        base = base_arm.results.get(res.batch_size)
        if base is None:
            return
        rng = np.random.default_rng(int(self.config.get("seed", 0)) + res.batch_size)
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
        rtol = float(self.config.get("accuracy_rtol", 1e-3))
        atol = float(self.config.get("accuracy_atol", 1e-5))
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

    def arm_dict(self, arm: ArmRecord) -> dict[str, Any]:
        results = [self.result_row(arm, arm.results[bs]) for bs in self._ordered(arm)]
        return {
            "index": arm.index,
            "name": arm.name,
            "backend": arm.backend,
            "options": arm.options,
            "error": arm.error,
            "model": arm.model,
            "exit": arm.exit,
            "pid": (arm.environment or {}).get("pid"),
            "results": results,
            "graph_breaks": dedupe_graph_breaks(arm),
            "recompiles": [
                {
                    k: c.get(k)
                    for k in ("batch_size", "step", "reason", "frame", "file", "line", "seconds")
                }
                for bs in self._ordered(arm)
                for c in arm.results[bs].compiles
                if c.get("kind") == "recompile"
            ],
            "fallbacks": [f for bs in self._ordered(arm) for f in arm.results[bs].fallbacks],
            "explain": arm.explain,
            "artifacts": arm.artifacts,
        }

    def _ordered(self, arm: ArmRecord) -> list[int]:
        order = self.batch_sizes()
        return sorted(arm.results, key=lambda b: order.index(b) if b in order else len(order) + b)

    def to_dict(self, include_samples: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema_version": self.schema_version,
            "status": self.status,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "environment": self.environment,
            "config": self.config,
            "baseline": self.baseline.name if self.baseline else None,
            "arms": [self.arm_dict(a) for a in self.arms],
            "errors": self.errors,
        }
        if include_samples:
            out["samples"] = [
                {
                    "arm": arm.name,
                    "batch_size": res.batch_size,
                    "warmup_ms": res.warmup_ms,
                    "ms": res.ms,
                    "memory": res.memory,
                }
                for arm in self.arms
                for res in (arm.results[b] for b in self._ordered(arm))
            ]
            out["logs"] = self.logs
        return jsonsafe(out)

    # -- persistence --------------------------------------------------------------------------
    @classmethod
    def from_events(cls, path: str | Path) -> Session:
        """Rebuild from events.jsonl; a run cut short ends as 'interrupted' with what it measured."""
        session = cls()
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    session.apply(decode(line))
                except ValueError:
                    break  # a torn last line from a crash
        if session.status == "running":
            session._on_run_end({"status": "interrupted", "wall_time": session.ended_at})
        return session


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


def _strip(event: dict[str, Any], keep_arm: bool = False) -> dict[str, Any]:
    drop = ("type",) if keep_arm else ("type", "arm")
    return {k: v for k, v in event.items() if k not in drop}


def load_session_json(path: str | Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)
