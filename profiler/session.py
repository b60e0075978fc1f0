"""The Session: everything a run produced, folded from its events (no torch, no Qt).

The GUI, the CLI and the reports read it; `to_dict()` is the documented session.json format
(docs/session-format.md), and `Session.from_events()` rebuilds one from an events.jsonl, which
is how an interrupted run keeps what it measured.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from profiler.events import decode, jsonsafe
from profiler.result_rows import dedupe_graph_breaks, result_row

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
        return result_row(self, arm, res)

    def arm_dict(self, arm: ArmRecord) -> dict[str, Any]:
        results = [self.result_row(arm, arm.results[bs]) for bs in self.ordered_batch_sizes(arm)]
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
                for bs in self.ordered_batch_sizes(arm)
                for c in arm.results[bs].compiles
                if c.get("kind") == "recompile"
            ],
            "fallbacks": [
                f for bs in self.ordered_batch_sizes(arm) for f in arm.results[bs].fallbacks
            ],
            "explain": arm.explain,
            "artifacts": arm.artifacts,
        }

    def ordered_batch_sizes(self, arm: ArmRecord) -> list[int]:
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
                for res in (arm.results[b] for b in self.ordered_batch_sizes(arm))
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


def _strip(event: dict[str, Any], keep_arm: bool = False) -> dict[str, Any]:
    drop = ("type",) if keep_arm else ("type", "arm")
    return {k: v for k, v in event.items() if k not in drop}
