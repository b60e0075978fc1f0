"""The Session: everything a run produced, folded from its events (no torch, no Qt).

The GUI, the CLI and the reports read it; `to_dict()` is the documented session.json format
(docs/session-format.md), and `Session.from_events()` rebuilds one from an events.jsonl, which
is how an interrupted run keeps what it measured.

A run has rounds (replicates), each with a fresh process per arm: events carry `replicate`.
Measured steps are kept per (replicate, block) for the statistics; what TorchDynamo did (compiles,
graph breaks, fallbacks) is taken from the first round only, the later rounds' compiles being
the warm-cache figures; the untimed accuracy pass (replicate "accuracy") only adds its verdicts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from profiler.advice import arm_advice
from profiler.events import jsonsafe
from profiler.ladder import ladder_summary
from profiler.regional import regional_tradeoffs
from profiler.result_rows import dedupe_graph_breaks, result_row
from profiler.session_files import iter_events

SCHEMA_VERSION = 2
ACCURACY_PASS = "accuracy"  # the `replicate` of events from the untimed accuracy process
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
    cudagraph_skips: list[dict[str, Any]] = field(default_factory=list)  # round 0
    warmup_by_rep: dict[int, list[float]] = field(default_factory=dict)  # CUDA graph recording
    done: dict[str, Any] = field(default_factory=dict)  # the worker's bs_done fields (round 0)
    profile: dict[str, Any] | None = None  # the torch.profiler pass: path, top_ops
    block_ms: dict[tuple[int, int], list[float]] = field(default_factory=dict)  # (rep, block)
    blocks: list[dict[str, Any]] = field(default_factory=list)  # block_done: rep, quiet, ...
    first_steps: dict[int, dict[str, Any]] = field(default_factory=dict)  # rep -> first_step
    later_compiles: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # rep >= 1
    done_by_replicate: dict[int, dict[str, Any]] = field(default_factory=dict)
    accuracy: dict[str, Any] | None = None  # the untimed accuracy check's verdict
    # a distributed arm, per rank: measured samples, first step and bs_done of round 0
    rank_ms: dict[int, list[float]] = field(default_factory=dict)
    rank_first: dict[int, dict[str, Any]] = field(default_factory=dict)
    rank_done: dict[int, dict[str, Any]] = field(default_factory=dict)
    rank_insight: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # compiles, ...

    def processes(self) -> dict[int, list[list[float]]]:
        """Measured blocks per replicate (process), in block order."""
        out: dict[int, list[list[float]]] = {}
        for (rep, _block), ms in sorted(self.block_ms.items()):
            out.setdefault(rep, []).append(ms)
        if not out and self.ms:  # a schema 1 session: one process, one block
            out[0] = [self.ms]
        return out

    def compiles_of(self, replicate: int) -> list[dict[str, Any]]:
        return self.compiles if replicate == 0 else self.later_compiles.get(replicate, [])


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
    caches: dict[int, str] = field(default_factory=dict)  # replicate -> cold|portable|warm|user
    cache_events: list[dict[str, Any]] = field(default_factory=list)  # artifacts saved / loaded
    world_size: int = 1  # ranks of a distributed arm (torchrun), else 1
    ranks: dict[int, dict[str, Any]] = field(default_factory=dict)  # rank -> node, host, pid

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
        self.rounds: list[dict[str, Any]] = []
        if config:
            self._init_arms(config)

    def _init_arms(self, config: dict[str, Any]) -> None:
        from profiler.config import arms_of, world_size_of

        self.arms = [
            ArmRecord(
                i, spec.name, spec.backend, spec.options(), world_size=world_size_of(config, spec)
            )
            for i, spec in enumerate(arms_of(config))
        ]

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

    def _on_arms_added(self, e: dict[str, Any]) -> None:
        from profiler.config import ArmSpec

        self.config.setdefault("added_arms", []).extend(e.get("arms") or [])
        self.config.setdefault("applied_advice", []).extend(e.get("applied") or [])
        for data in e.get("arms") or []:
            spec = ArmSpec.from_dict(data)
            self.arms.append(ArmRecord(len(self.arms), spec.name, spec.backend, spec.options()))

    def _on_round_start(self, e: dict[str, Any]) -> None:
        self.rounds.append(_strip(e))

    def _on_arm_start(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm and isinstance(e.get("replicate"), int) and e.get("cache"):
            arm.caches[e["replicate"]] = e["cache"]

    def _on_cache_saved(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.cache_events.append({"event": "saved", **_strip(e)})
            if e.get("saved") and e.get("path"):
                arm.artifacts.append({"kind": "compile_cache_artifacts", "path": e["path"]})

    def _on_cache_loaded(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm:
            arm.cache_events.append({"event": "loaded", **_strip(e)})

    def _on_accuracy(self, e: dict[str, Any]) -> None:
        arm = self._arm(e)
        if arm and e.get("batch_size") is not None:
            arm.result(e["batch_size"]).accuracy = _strip(e, drop=("replicate", "t"))

    def _on_run_end(self, e: dict[str, Any]) -> None:
        self.status = e.get("status", "completed")
        self.ended_at = e.get("wall_time", time.time())
        for arm in self.arms:
            for res in arm.results.values():
                if res.status == "running":  # cut short: its rows say how far it got
                    res.status = "error" if res.error else "stopped"

    def _on_hello(self, e: dict[str, Any]) -> None:
        if _replicate(e) != 0:
            return  # the first process of each arm describes the environment
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

    def _timed(self, e: dict[str, Any]) -> ArmRecord | None:
        """The arm of an event from a timed process (not the untimed accuracy pass)."""
        return None if _replicate(e) == ACCURACY_PASS else self._arm(e)

    def _on_first_step(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm:
            res = arm.result(e["batch_size"])
            rep = _replicate(e)
            res.first_steps[rep] = _strip(e, drop=("replicate", "t", "batch_size"))
            if rep == 0:
                res.first_step_ms, res.first_loss, res.first_grad_norm = (
                    e.get("ms"),
                    e.get("loss"),
                    e.get("grad_norm"),
                )

    def _on_steps(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm:
            res = arm.result(e["batch_size"])
            if e.get("phase") == "warmup":
                res.warmup_by_rep.setdefault(_replicate(e), []).extend(e["ms"])
                if _replicate(e) == 0:
                    res.warmup_ms.extend(e["ms"])
                return
            res.ms.extend(e["ms"])
            key = (_replicate(e), int(e.get("block") or 0))
            res.block_ms.setdefault(key, []).extend(e["ms"])

    def _on_block_done(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm and e.get("batch_size") is not None:
            arm.result(e["batch_size"]).blocks.append(
                _strip(e, drop=("t", "batch_size"), keep_arm=False)
            )

    def _on_memory(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm and _replicate(e) == 0:
            arm.result(e["batch_size"]).memory.append(
                [e.get("step"), e.get("rss_mb"), e.get("cuda_alloc_mb"), e.get("cuda_reserved_mb")]
            )

    def _on_compile(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm:
            res = arm.result(e["batch_size"])
            rep = _replicate(e)
            compiles = res.compiles if rep == 0 else res.later_compiles.setdefault(rep, [])
            compiles.append(_strip(e, drop=("replicate",)))

    def _on_graph_break(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm and _replicate(e) == 0:
            arm.result(e["batch_size"]).graph_break_events.append(_strip(e, drop=("replicate",)))

    def _on_fallback(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm and _replicate(e) == 0:
            arm.result(e["batch_size"]).fallbacks.append(_strip(e, drop=("replicate",)))

    def _on_cudagraph_skip(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm and _replicate(e) == 0:
            arm.result(e["batch_size"]).cudagraph_skips.append(_strip(e, drop=("replicate",)))

    def _on_bs_done(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm:
            res = arm.result(e["batch_size"])
            rep = _replicate(e)
            res.done_by_replicate[rep] = _strip(e, drop=("replicate",))
            if rep == 0:
                res.done = _strip(e, drop=("replicate",))
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
        if _replicate(e) == ACCURACY_PASS:
            if bs is not None:  # the check could not run: say so, the timings stand
                arm.result(bs).accuracy = {
                    "status": "skipped",
                    "worst": None,
                    "reason": f"the accuracy check failed to run: {e.get('message')}",
                }
            return
        if bs is not None:
            res = arm.result(bs)
            res.status = "oom" if e.get("kind") == "oom" else "error"
            res.error = brief
        if e.get("fatal", True) and arm.error is None:
            arm.error = brief

    def _on_rank_event(self, e: dict[str, Any]) -> None:
        """One rank's own figures of a distributed arm (its merged ones arrive as usual)."""
        arm = self._timed(e)
        inner = e.get("event")
        rank = e.get("rank")
        if arm is None or not isinstance(inner, dict) or not isinstance(rank, int):
            return
        kind = inner.get("type")
        if kind == "hello" and _replicate(e) == 0:
            arm.ranks[rank] = {"node": e.get("node", 0), "host": e.get("host")}
            arm.ranks[rank]["pid"] = inner.get("pid")
            return
        bs = inner.get("batch_size")
        if not isinstance(bs, int):
            return
        res = arm.result(bs)
        if kind == "steps" and inner.get("phase") == "measure":
            res.rank_ms.setdefault(rank, []).extend(inner.get("ms") or [])
        elif kind == "first_step" and _replicate(e) == 0:
            res.rank_first[rank] = _strip(inner)
        elif kind == "bs_done" and _replicate(e) == 0:
            res.rank_done[rank] = _strip(inner)
        elif kind in ("compile", "graph_break", "fallback") and _replicate(e) == 0:
            res.rank_insight.setdefault(rank, []).append(dict(inner))

    def _on_profile(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm:
            arm.result(e["batch_size"]).profile = _strip(e)

    def _on_explain(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
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
        out = {
            "index": arm.index,
            "name": arm.name,
            "backend": arm.backend,
            "options": arm.options,
            "error": arm.error,
            "model": arm.model,
            "exit": arm.exit,
            "pid": (arm.environment or {}).get("pid"),
            "world_size": arm.world_size,
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
            "cudagraph_skips": [
                s for bs in self.ordered_batch_sizes(arm) for s in arm.results[bs].cudagraph_skips
            ],
            "explain": arm.explain,
            "artifacts": arm.artifacts,
            "caches": {str(k): v for k, v in sorted(arm.caches.items())},
            "cache_events": arm.cache_events,
        }
        out["advice"] = self.advice(out)
        return out

    def advice(self, arm: dict[str, Any]) -> list[dict[str, Any]]:
        """Recompile advice from what the arm recorded (see profiler.advice)."""
        source = (self.config or {}).get("source") or {}
        limits = [f.get("limit") for f in arm.get("fallbacks") or [] if f.get("limit")]
        return arm_advice(
            arm, self.batch_sizes(), source.get("path"), limits[0] if limits else None
        )

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
            "rounds": self.rounds,
            "arms": [self.arm_dict(a) for a in self.arms],
            "errors": self.errors,
        }
        out["regional"] = regional_tradeoffs(out)
        out["ladder"] = ladder_summary(
            out
        )  # None unless the arms are the backend ladder  # [] unless a regional arm has a whole twin
        if include_samples:
            out["samples"] = self.samples()
            out["logs"] = self.logs
        return jsonsafe(out)

    def samples(self) -> list[dict[str, Any]]:
        """Raw per-step data per arm x batch size (session.json's `samples`)."""
        return [
            {
                "arm": arm.name,
                "batch_size": res.batch_size,
                "warmup_ms": res.warmup_ms,
                "ms": res.ms,
                "blocks": [[rep, block, len(ms)] for (rep, block), ms in res.block_ms.items()],
                "memory": res.memory,
            }
            for arm in self.arms
            for res in (arm.results[b] for b in self.ordered_batch_sizes(arm))
        ]

    # -- persistence --------------------------------------------------------------------------
    @classmethod
    def from_events(cls, path: str | Path, skipped: list[str] | None = None) -> Session:
        """Rebuild from events.jsonl; a run cut short ends as 'interrupted' with what it measured.
        Events whose fields are unusable are left out (why: appended to `skipped`)."""
        session = cls()
        for event in iter_events(path, skipped):  # a torn last line from a crash ends them
            session.apply(event)
        if session.status == "running":
            session._on_run_end({"status": "interrupted", "wall_time": session.ended_at})
        return session


def _strip(
    event: dict[str, Any], keep_arm: bool = False, drop: tuple[str, ...] = ()
) -> dict[str, Any]:
    dropped = ("type", *drop) if keep_arm else ("type", "arm", *drop)
    return {k: v for k, v in event.items() if k not in dropped}


def _replicate(event: dict[str, Any]) -> int | str:
    """The round an event came from; events of schema 1 sessions have none (one round)."""
    rep = event.get("replicate")
    return 0 if rep is None else rep
