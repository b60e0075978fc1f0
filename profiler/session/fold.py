"""Events folded into a session: the one place a run's events become its records.

The window, the CLI and the reports read the result; `to_dict()` is the documented
session.json format (docs/session-format.md, derived in `document`), and
`SessionFold.from_events()` rebuilds one from recorded events, which is how an interrupted run
keeps what it measured. Events are dispatched by their declared type (`EventType`); a type a
session does not fold is ignored.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from tcprof.profiler.protocol.events import EventType
from tcprof.profiler.session.marks import timeline_mark
from tcprof.profiler.session.records import (
    ACCURACY_PASS,
    MAX_LOG_LINES,
    ArmRecord,
    BatchResult,
    SessionRecord,
)


class SessionFold(SessionRecord):
    """A session being folded from its events (`apply`), and its session.json (`to_dict`)."""

    # -- folding ------------------------------------------------------------------------------
    def apply(self, event: dict[str, Any]) -> None:
        """Fold one event; a type this session does not fold (or does not know) is ignored."""
        try:
            kind = EventType(event.get("type"))
        except ValueError:
            return
        mark = timeline_mark(event)
        if mark is not None:
            self.marks.append(mark)
        handler = _FOLD.get(kind)
        if handler is not None:
            handler(self, event)

    def _arm(self, event: dict[str, Any]) -> ArmRecord | None:
        idx = event.get("arm")
        if isinstance(idx, int) and 0 <= idx < len(self.arms):
            return self.arms[idx]
        return None

    def _on_run_start(self, e: dict[str, Any]) -> None:
        self.config = e["config"]
        self.provenance = e.get("provenance")
        self.seeding = e.get("seeding")
        self.started_at = e.get("wall_time", time.time())
        self._init_arms(self.config)

    def _on_arms_added(self, e: dict[str, Any]) -> None:
        from tcprof.profiler.config import ArmSpec

        self.config.setdefault("added_arms", []).extend(e.get("arms") or [])
        self.config.setdefault("applied_advice", []).extend(e.get("applied") or [])
        for data in e.get("arms") or []:
            spec = ArmSpec.from_dict(data)
            self.arms.append(ArmRecord(len(self.arms), spec.name, spec.backend, spec.options()))

    def _on_round_start(self, e: dict[str, Any]) -> None:
        self.rounds.append(_strip(e))

    def _on_round_end(self, e: dict[str, Any]) -> None:
        """The round's untimed waits before its blocks, kept with the round they belong to."""
        if e.get("block_wait_s") is None:
            return
        for entry in reversed(self.rounds):
            if entry.get("replicate") == e.get("replicate"):
                entry["block_wait_s"] = e["block_wait_s"]
                return

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
        if e.get("stopping"):
            self.stopping = dict(e["stopping"])
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
            kept = (arm.model or {}).get("cpu_check")
            arm.model = {k: v for k, v in e.items() if k not in ("type", "arm", "t")}
            if kept and not (e.get("cpu_check") or {}).get("built"):
                arm.model["cpu_check"] = kept  # the first round's, unless a later one built it

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
            rep = _round(e)
            res.first_steps[rep] = _strip(e, drop=("replicate", "t", "batch_size"))
            if rep == 0:
                res.first_step_ms, res.first_loss, res.first_grad_norm = (
                    e.get("ms"),
                    e.get("loss"),
                    e.get("grad_norm"),
                )
                if isinstance(e.get("loss"), (int, float)):
                    res.loss_by_step[0] = e["loss"]

    def _on_steps(self, e: dict[str, Any]) -> None:
        arm = self._timed(e)
        if arm:
            res = arm.result(e["batch_size"])
            _fold_script_steps(res, e)
            if e.get("phase") == "warmup":
                res.warmup_by_rep.setdefault(_round(e), []).extend(e["ms"])
                if _replicate(e) == 0:
                    res.warmup_ms.extend(e["ms"])
                return
            res.ms.extend(e["ms"])
            key = (_round(e), int(e.get("block") or 0))
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
            rep = _round(e)
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
            rep = _round(e)
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
        if isinstance(e.get("steps_run"), int):  # what it ran before failing stays in its row
            brief["steps_run"] = e["steps_run"]
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

    def _on_script(self, e: dict[str, Any]) -> None:
        """What a script did: the first round's notes (each once), every round's files."""
        arm = self._timed(e)
        if arm is None:
            return
        if e.get("kind") == "files":
            for item in e.get("files") or []:
                if isinstance(item, dict) and isinstance(item.get("path"), str):
                    arm.script_files[item["path"]] = item.get("bytes")
            return
        note = _strip(e, drop=("replicate", "t"))
        if _replicate(e) == 0 and note not in arm.script_notes:
            arm.script_notes.append(note)

    def _on_log(self, e: dict[str, Any]) -> None:
        if len(self.logs) < MAX_LOG_LINES:
            self.logs.append(_strip(e, keep_arm=True))

    # -- derived ------------------------------------------------------------------------------
    def to_dict(self, include_samples: bool = True) -> dict[str, Any]:
        """session.json's contents (docs/session-format.md)."""
        # imported here: the statistics (numpy, scipy) are not needed to start a run, and a
        # CLI that reaches its first worker 0.3 s sooner starts the script's clock sooner
        from tcprof.profiler.session.document import session_document

        return session_document(self, include_samples)

    # -- persistence --------------------------------------------------------------------------
    @classmethod
    def from_events(cls, events: Iterable[dict[str, Any]]) -> SessionFold:
        """Rebuild from recorded events (`store.files.iter_events` reads an events.jsonl); a run
        cut short ends as 'interrupted' with what it measured."""
        session = cls()
        for event in events:
            session.apply(event)
        if session.status == "running":
            session._on_run_end({"status": "interrupted", "wall_time": session.ended_at})
        return session


# Which events a session folds, by their declared type.
_FOLD: dict[EventType, Callable[[SessionFold, dict[str, Any]], None]] = {
    EventType.RUN_START: SessionFold._on_run_start,
    EventType.ARMS_ADDED: SessionFold._on_arms_added,
    EventType.ROUND_START: SessionFold._on_round_start,
    EventType.ROUND_END: SessionFold._on_round_end,
    EventType.ARM_START: SessionFold._on_arm_start,
    EventType.CACHE_SAVED: SessionFold._on_cache_saved,
    EventType.CACHE_LOADED: SessionFold._on_cache_loaded,
    EventType.ACCURACY: SessionFold._on_accuracy,
    EventType.RUN_END: SessionFold._on_run_end,
    EventType.HELLO: SessionFold._on_hello,
    EventType.LOADED: SessionFold._on_loaded,
    EventType.PHASE: SessionFold._on_phase,
    EventType.FIRST_STEP: SessionFold._on_first_step,
    EventType.STEPS: SessionFold._on_steps,
    EventType.BLOCK_DONE: SessionFold._on_block_done,
    EventType.MEMORY: SessionFold._on_memory,
    EventType.COMPILE: SessionFold._on_compile,
    EventType.GRAPH_BREAK: SessionFold._on_graph_break,
    EventType.FALLBACK: SessionFold._on_fallback,
    EventType.CUDAGRAPH_SKIP: SessionFold._on_cudagraph_skip,
    EventType.BS_DONE: SessionFold._on_bs_done,
    EventType.ERROR: SessionFold._on_error,
    EventType.RANK_EVENT: SessionFold._on_rank_event,
    EventType.PROFILE: SessionFold._on_profile,
    EventType.EXPLAIN: SessionFold._on_explain,
    EventType.ARTIFACT: SessionFold._on_artifact,
    EventType.WORKER_EXIT: SessionFold._on_worker_exit,
    EventType.LOG: SessionFold._on_log,
    EventType.SCRIPT: SessionFold._on_script,
}


def _fold_script_steps(res: BatchResult, e: dict[str, Any]) -> None:
    """A script's steps also carry the script's own time, the loss and the work of each step."""
    own, loss, ms = e.get("own_ms"), e.get("loss"), e.get("ms") or []
    if not isinstance(own, list) and not isinstance(loss, list):
        return
    own = own if isinstance(own, list) and len(own) == len(ms) else [None] * len(ms)
    loss = loss if isinstance(loss, list) and len(loss) == len(ms) else [None] * len(ms)
    rep = _round(e)
    if rep == 0 and isinstance(e.get("start"), int):
        for i, value in enumerate(loss):
            if isinstance(value, (int, float)):
                res.loss_by_step[e["start"] + i] = value
    if e.get("phase") == "warmup":
        return
    res.own_ms.extend(own)
    res.loss.extend(loss)
    for key, into in (("samples", res.samples), ("tokens", res.tokens)):
        work = e.get(key)
        into.extend(work if isinstance(work, list) and len(work) == len(ms) else [None] * len(ms))
    res.own_by_rep.setdefault(rep, []).extend(v for v in own if isinstance(v, (int, float)))


def _strip(
    event: dict[str, Any], keep_arm: bool = False, drop: tuple[str, ...] = ()
) -> dict[str, Any]:
    dropped = ("type", *drop) if keep_arm else ("type", "arm", *drop)
    return {k: v for k, v in event.items() if k not in dropped}


def _replicate(event: dict[str, Any]) -> int | str:
    """The round an event came from; events of schema 1 sessions have none (one round)."""
    rep = event.get("replicate")
    return 0 if rep is None else rep


def _round(event: dict[str, Any]) -> int:
    """The round of an event from a timed process (`SessionFold._timed`): its replicate, an
    integer (events of schema 1 sessions have none: one round)."""
    rep = event.get("replicate")
    return rep if isinstance(rep, int) else 0
