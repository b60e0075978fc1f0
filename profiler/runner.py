"""The run: rounds of fresh worker processes, arms taking turns in timed blocks, an untimed
accuracy pass, all folded into a Session.

A run is `replicates` rounds. Each round starts one fresh process per arm (so a round's memory
is that of one process per arm, and process-to-process variation shows up between rounds);
the arms' order alternates across rounds (stats.round_order). Within a round, for each batch
size, every arm first runs its first (compiling) step and warm-up; only then do the measured
blocks start, the arms taking turns (stats.block_order) so machine drift hits them alike, and
only one worker computes at any moment (a worker also waits for the others to be idle before
a block). The first round compiles into a fresh, empty cache folder per compiled arm (cold);
later rounds compile against what it left behind (warm), and with three or more rounds the
second starts from an empty folder loaded with the first round's portable cache artifacts.
After the rounds, each compiled arm's accuracy is checked in one more, untimed process.

A sequential mode runs one arm after another with a single worker alive, for models too large
to hold twice. The runner never imports torch or Qt; listeners receive every event in the
caller's thread.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from profiler import stats
from profiler.config import ArmSpec, RunConfig, arm_artifacts_dir, resolve_threads
from profiler.debug_artifacts import debug_env, render_tlparse
from profiler.events import screen_hello
from profiler.session import ACCURACY_PASS, Session
from profiler.worker_pool import WorkerPool
from profiler.worker_process import WorkerProcess

Listener = Callable[[dict[str, Any]], None]
WorkerFactory = Callable[[int, queue.Queue, dict[str, str]], Any]
POLL_S = 0.1


class RunStopped(Exception):
    """Raised inside the run loop when the user stops or the run times out."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


def split_steps(steps: int, blocks: int) -> list[int]:
    """Split measured steps into at most `blocks` near-equal blocks (none empty)."""
    blocks = max(1, min(blocks, steps))
    base, extra = divmod(steps, blocks)
    return [base + (1 if i < extra else 0) for i in range(blocks)]


def cache_plan(replicates: int, warm_cache: bool) -> list[str]:
    """Where each round's compiled arms find their caches: 'cold' (a fresh, empty folder),
    'portable' (a fresh folder loaded with the cold round's cache artifacts), 'warm' (the
    folder the cold round filled) or 'user' (the user's own caches, --warm-cache)."""
    if warm_cache:
        return ["user"] * replicates
    plan = ["cold"] + ["warm"] * (replicates - 1)
    if replicates >= 3:
        plan[1] = "portable"
    return plan


class _ArmState:
    def __init__(self, index: int, spec: ArmSpec) -> None:
        self.index = index
        self.spec = spec
        self.worker: Any = None
        self.failed = False  # a fatal error: no more batch sizes for this arm in this round
        self.exited = False
        self.outcomes: list[bool] = []  # finished commands not yet awaited
        self.command_failed = False


class Runner:
    def __init__(
        self,
        config: RunConfig,
        listeners: list[Listener] | None = None,
        clock: Callable[[], float] = time.monotonic,
        pool: WorkerPool | None = None,
        worker_factory: WorkerFactory | None = None,
    ) -> None:
        """pool: pre-started, warmed-up workers for the first round instead of fresh ones.
        worker_factory: how a worker is started (tests pass a scripted fake)."""
        if config.threads is None:  # recorded in the session: every worker uses the same
            concurrent = 1  # arms take turns, so one process computes at a time
            config = dataclasses.replace(config, threads=resolve_threads(concurrent))
        self.config = config
        self._pool = pool
        self._factory = worker_factory or (
            lambda index, inbox, env: WorkerProcess(index, inbox, extra_env=env)
        )
        self.listeners = list(listeners or [])
        self.session = Session()
        self._clock = clock
        self._inbox: queue.Queue = queue.Queue()
        self._cancel = threading.Event()
        self._specs = config.run_arms
        self._arms: list[_ArmState] = []
        self._round: int | str | None = None
        self._dead: set[int] = set()  # arms that failed fatally: not started again
        self._failed_sizes: set[tuple[int, int]] = set()  # (arm, batch size) that failed
        self._portable_ready: set[int] = set()  # arms whose cache artifacts were saved
        self._cache_root: Path | None = None
        self._t0 = 0.0
        self._deadline: float | None = None

    # -- public -------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop the run from any thread; the run loop ends the workers within about a second."""
        self._cancel.set()

    def run(self) -> Session:
        self._t0 = self._clock()
        if self.config.timeout_s:
            self._deadline = self._t0 + self.config.timeout_s
        self._publish(
            {"type": "run_start", "config": self.config.to_dict(), "wall_time": time.time()}
        )
        if not self.config.warm_cache and any(s.compiled for s in self._specs):
            self._cache_root = Path(tempfile.mkdtemp(prefix="tcprof-cache-"))
        status = "completed"
        try:
            plan = cache_plan(self.config.replicates, self.config.warm_cache)
            for round_no, cache in enumerate(plan):
                self._run_round(round_no, cache)
            if self.config.accuracy:
                self._run_accuracy()
            if self._dead:
                status = "completed_with_errors"
        except RunStopped as stop:
            status = stop.status
        except KeyboardInterrupt:
            status = "stopped"
            self._shutdown(force=True)
            self._finish_run(status)
            raise
        finally:
            if status in ("stopped", "timeout"):
                self._shutdown(force=True)
        self._shutdown(force=False)
        if self.config.debug.trace:
            for index in range(len(self._specs)):
                for event in render_tlparse(arm_artifacts_dir(self.config, index)):
                    self._publish({**event, "arm": index})
        self._finish_run(status)
        return self.session

    def _finish_run(self, status: str) -> None:
        if self._cache_root is not None:
            shutil.rmtree(self._cache_root, ignore_errors=True)
        self._publish({"type": "run_end", "status": status, "wall_time": time.time()})

    # -- rounds -------------------------------------------------------------------------------
    def _run_round(self, round_no: int, cache: str) -> None:
        self._round = round_no
        self._inbox = queue.Queue()  # a stale event of an earlier round's worker never reaches us
        self._arms = [_ArmState(i, spec) for i, spec in enumerate(self._specs)]
        order = [
            i
            for i in stats.round_order(len(self._arms), round_no, self.config.seed)
            if i not in self._dead
        ]
        self._publish(
            {
                "type": "round_start",
                "replicate": round_no,
                "cache": cache,
                "order": [self._specs[i].name for i in order],
            }
        )
        if self.config.sequential:
            self._round_sequential(order, round_no, cache)
        else:
            self._round_interleaved(order, round_no, cache)
        self._publish({"type": "round_end", "replicate": round_no})

    def _round_interleaved(self, order: list[int], round_no: int, cache: str) -> None:
        arms = [self._arms[i] for i in order]
        for arm in arms:
            self._start(arm, cache, pooled=round_no == 0)
        for arm in arms:  # all load in parallel; nothing is timed yet
            self._send(arm, self._load_command(arm, cache))
        for arm in arms:
            self._await_done(arm)
        for bs in self.config.batch_sizes:
            ready = {arm.index: self._prepare(arm, bs) for arm in arms}  # compiles end first
            for block, n in enumerate(split_steps(self.config.steps, self.config.blocks)):
                for i in stats.block_order(order, block):
                    arm = self._arms[i]
                    if ready[i] and not self._measure(arm, bs, n, block):
                        ready[i] = False
            for arm in arms:
                if ready[arm.index] and not arm.failed:
                    self._command(arm, {"cmd": "finish", "batch_size": bs, "detail": round_no == 0})
        for arm in arms:
            self._after_round(arm, round_no, cache)
            self._close(arm, last_round=round_no == self.config.replicates - 1)

    def _round_sequential(self, order: list[int], round_no: int, cache: str) -> None:
        for i in order:
            arm = self._arms[i]
            self._start(arm, cache, pooled=round_no == 0)
            self._send(arm, self._load_command(arm, cache))
            self._await_done(arm)
            for bs in self.config.batch_sizes:
                if arm.failed:
                    break
                if not self._prepare(arm, bs):
                    continue
                ok = all(
                    self._measure(arm, bs, n, block)
                    for block, n in enumerate(split_steps(self.config.steps, self.config.blocks))
                )
                if ok:
                    self._command(arm, {"cmd": "finish", "batch_size": bs, "detail": round_no == 0})
            self._after_round(arm, round_no, cache)
            self._close(arm, last_round=round_no == self.config.replicates - 1)

    def _prepare(self, arm: _ArmState, bs: int) -> bool:
        if arm.failed or (arm.index, bs) in self._failed_sizes:
            return False
        ok = self._command(arm, {"cmd": "prepare", "batch_size": bs})
        if not ok:
            self._failed_sizes.add((arm.index, bs))
        return ok

    def _measure(self, arm: _ArmState, bs: int, steps: int, block: int) -> bool:
        peers = [os.getpid()] + [
            a.worker.pid
            for a in self._arms
            if a is not arm and a.worker is not None and not a.exited
        ]
        command = {"cmd": "measure", "batch_size": bs, "steps": steps, "block": block}
        ok = self._command(arm, {**command, "peers": peers})
        if not ok:
            self._failed_sizes.add((arm.index, bs))
        return ok

    def _after_round(self, arm: _ArmState, round_no: int, cache: str) -> None:
        if arm.failed:
            self._dead.add(arm.index)
            return
        if cache == "cold" and self.config.replicates >= 3 and arm.spec.compiled:
            path = self._artifacts_file(arm.index)
            if self._command(arm, {"cmd": "save_cache", "path": str(path)}) and path.exists():
                self._portable_ready.add(arm.index)

    def _run_accuracy(self) -> None:
        """One untimed process per compiled arm: its compiles never touch the timed processes'
        dynamo state (recompile counts, the recompile limit, the cold cache)."""
        self._round = ACCURACY_PASS
        self._inbox = queue.Queue()
        self._arms = [_ArmState(i, spec) for i, spec in enumerate(self._specs)]
        for arm in self._arms:
            sizes = [
                bs for bs in self.config.batch_sizes if (arm.index, bs) not in self._failed_sizes
            ]
            if not arm.spec.compiled or arm.index in self._dead or not sizes:
                continue
            self._start(arm, "warm", pooled=False)
            self._send(arm, self._load_command(arm, "warm"))
            if self._await_done(arm):
                self._command(arm, {"cmd": "accuracy", "batch_sizes": sizes})
            self._close(arm, last_round=False)

    # -- caches -------------------------------------------------------------------------------
    def _cache_dir(self, index: int, cache: str) -> str | None:
        if self._cache_root is None or cache == "user":
            return None
        name = "portable" if cache == "portable" and index in self._portable_ready else "main"
        return str(self._cache_root / f"arm{index}" / name)

    def _artifacts_file(self, index: int) -> Path:
        """The portable cache artifacts, offered to the user beside the session when it has a
        folder (that is how warm starts are shipped to a fleet)."""
        folder = arm_artifacts_dir(self.config, index)
        if folder is None:
            assert self._cache_root is not None
            folder = self._cache_root / f"arm{index}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / "compile-cache-artifacts.bin"

    def _load_command(self, arm: _ArmState, cache: str) -> dict[str, Any]:
        command: dict[str, Any] = {
            "cmd": "load",
            "config": self.config.to_dict(),
            "arm_index": arm.index,
        }
        if arm.spec.compiled:
            command["cache_dir"] = self._cache_dir(arm.index, cache)
            if cache == "portable" and arm.index in self._portable_ready:
                command["cache_artifacts"] = str(self._artifacts_file(arm.index))
        return command

    # -- workers ------------------------------------------------------------------------------
    def _start(self, arm: _ArmState, cache: str, pooled: bool) -> None:
        spec = arm.spec
        if spec.compiled and cache == "portable" and arm.index not in self._portable_ready:
            cache = "warm"
        self._publish(
            {
                "type": "arm_start",
                "arm": arm.index,
                "name": spec.name,
                "backend": spec.backend,
                "replicate": self._round,
                "cache": cache if spec.compiled else None,
            }
        )
        env = debug_env(self.config, arm.index)
        worker = None
        if pooled and self._pool is not None and not env:
            worker = self._pool.take(arm.index, self._inbox)
        arm.worker = worker or self._factory(arm.index, self._inbox, env)

    def _send(self, arm: _ArmState, command: dict[str, Any]) -> None:
        assert arm.worker is not None
        arm.worker.send(command)

    def _command(self, arm: _ArmState, command: dict[str, Any]) -> bool:
        """Send a command and wait for it; False if it failed (the arm may go on if not fatal)."""
        if arm.failed or arm.worker is None:
            return False
        self._send(arm, command)
        return self._await_done(arm)

    def _await_done(self, arm: _ArmState) -> bool:
        """Relay events until `arm` finishes its command; True if it succeeded.

        Other arms may finish commands meanwhile (loads run in parallel); their outcomes are
        queued for when they are awaited."""
        while True:
            if arm.outcomes:
                return arm.outcomes.pop(0) and not arm.failed
            if arm.exited:
                return False
            idx, event = self._next_event()
            event = screen_hello(event)  # a worker of another protocol version: a fatal error
            other = self._arms[idx]
            kind = event.get("type")
            if kind == "_eof":
                self._on_worker_gone(other)
                continue
            if kind == "error":
                other.command_failed = True
                if event.get("fatal", True):
                    other.failed = True
            if kind == "done":
                other.outcomes.append(not other.command_failed)
                other.command_failed = False
                continue
            self._publish(self._tag(idx, event))

    def _tag(self, idx: int, event: dict[str, Any]) -> dict[str, Any]:
        event["arm"] = idx
        event["replicate"] = self._round
        return event

    def _next_event(self) -> tuple[int, dict[str, Any]]:
        while True:
            if self._cancel.is_set():
                raise RunStopped("stopped")
            if self._deadline is not None and self._clock() > self._deadline:
                self._publish(
                    {
                        "type": "error",
                        "kind": "timeout",
                        "message": f"the run passed its {self.config.timeout_s:g} s timeout",
                        "fatal": True,
                    }
                )
                raise RunStopped("timeout")
            try:
                return self._inbox.get(timeout=POLL_S)
            except queue.Empty:
                continue

    def _on_worker_gone(self, arm: _ArmState) -> None:
        if arm.exited or arm.worker is None:
            return
        arm.exited = True
        try:
            arm.worker.proc.wait(timeout=5)
        except Exception:
            arm.worker.stop()
        info = arm.worker.classify_exit()
        self._drain_output(arm)
        self._publish(self._tag(arm.index, {"type": "worker_exit", **info}))
        if info["status"] not in ("normal", "stopped") and not arm.failed:
            arm.failed = True
            self._publish(
                self._tag(
                    arm.index,
                    {
                        "type": "error",
                        "kind": "crash",
                        "message": f"{arm.spec.name}: {info.get('message', 'worker ended unexpectedly')}",
                        "batch_size": self.session.arms[arm.index].phase_batch_size
                        if self.session.arms
                        else None,
                        "fatal": True,
                    },
                )
            )

    def _drain_output(self, arm: _ArmState) -> None:
        """Relay what is still queued (a crashed worker's last words) without blocking."""
        pending = []
        while True:
            try:
                pending.append(self._inbox.get_nowait())
            except queue.Empty:
                break
        for idx, event in pending:
            if event.get("type") in ("_eof", "done"):
                if event.get("type") == "_eof" and idx != arm.index:
                    self._inbox.put((idx, event))
                continue
            self._publish(self._tag(idx, event))

    def _close(self, arm: _ArmState, last_round: bool) -> None:
        if arm.worker is None or arm.exited:
            return
        save = self.config.save_weights and last_round and not self._cancel.is_set()
        if save and not arm.failed:
            self._command(arm, {"cmd": "save_weights", "format": self.config.save_weights})
        arm.worker.send({"cmd": "exit"})
        deadline = self._clock() + 10
        while not arm.exited and self._clock() < deadline:
            try:
                idx, event = self._inbox.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if event.get("type") == "_eof":
                self._on_worker_gone(self._arms[idx])
            elif event.get("type") not in ("done", "bye"):
                self._publish(self._tag(idx, event))
        if not arm.exited:
            arm.worker.stop()
            self._on_worker_gone(arm)

    def _shutdown(self, force: bool) -> None:
        for arm in self._arms:
            if arm.worker is None or arm.exited:
                continue
            if force:
                arm.worker.stop()
                self._on_worker_gone(arm)
            else:
                self._close(arm, last_round=False)

    # -- events -------------------------------------------------------------------------------
    def _publish(self, event: dict[str, Any]) -> None:
        event.setdefault("t", round(self._clock() - self._t0, 4))
        self.session.apply(event)
        for listener in self.listeners:
            listener(event)
