"""The run: start one worker per arm, schedule their steps, fold their events into a Session.

Measurement is interleaved in blocks: for each batch size every arm runs its first (compiling)
step and warm-up, then the measured steps are split into `blocks` rounds in which the arms take
turns, so machine drift hits every arm alike. Only one worker computes at any moment. A
sequential mode runs one arm after another with a single worker alive, for models too large to
hold twice.

The runner never imports torch or Qt; listeners receive every event in the caller's thread.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from profiler.config import RunConfig, arm_artifacts_dir
from profiler.debug_artifacts import debug_env, render_tlparse
from profiler.session import Session
from profiler.worker_pool import WorkerPool
from profiler.worker_process import WorkerProcess

Listener = Callable[[dict[str, Any]], None]
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


class _ArmState:
    def __init__(self, index: int) -> None:
        self.index = index
        self.worker: WorkerProcess | None = None
        self.failed = False  # a fatal error: no more batch sizes for this arm
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
    ) -> None:
        """pool: pre-started, warmed-up workers to use instead of starting fresh ones."""
        self.config = config
        self._pool = pool
        self.listeners = list(listeners or [])
        self.session = Session()
        self._clock = clock
        self._inbox: queue.Queue = queue.Queue()
        self._cancel = threading.Event()
        self._arms = [_ArmState(i) for i in range(len(config.arms))]
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
        status = "completed"
        try:
            if self.config.sequential:
                self._run_sequential()
            else:
                self._run_interleaved()
            if any(a.failed for a in self._arms):
                status = "completed_with_errors"
        except RunStopped as stop:
            status = stop.status
        except KeyboardInterrupt:
            status = "stopped"
            self._shutdown(force=True)
            self._publish({"type": "run_end", "status": status, "wall_time": time.time()})
            raise
        finally:
            if status in ("stopped", "timeout"):
                self._shutdown(force=True)
        self._shutdown(force=False)
        if self.config.debug.trace:
            for arm in self._arms:
                for event in render_tlparse(arm_artifacts_dir(self.config, arm.index)):
                    self._publish({**event, "arm": arm.index})
        self._publish({"type": "run_end", "status": status, "wall_time": time.time()})
        return self.session

    # -- schedules ----------------------------------------------------------------------------
    def _run_interleaved(self) -> None:
        for arm in self._arms:
            self._start(arm)
        for arm in self._arms:  # all load in parallel; nothing is timed yet
            self._send(
                arm, {"cmd": "load", "config": self.config.to_dict(), "arm_index": arm.index}
            )
        for arm in self._arms:
            self._await_done(arm)
        for bs in self.config.batch_sizes:
            ready = {a.index: not a.failed for a in self._arms}
            for round_no, n in enumerate(split_steps(self.config.steps, self.config.blocks)):
                for arm in self._arms:
                    if not ready[arm.index] or arm.failed:
                        continue
                    if round_no == 0 and not self._command(
                        arm, {"cmd": "prepare", "batch_size": bs}
                    ):
                        ready[arm.index] = False
                        continue
                    if not self._command(arm, {"cmd": "measure", "batch_size": bs, "steps": n}):
                        ready[arm.index] = False
            for arm in self._arms:
                if ready[arm.index] and not arm.failed:
                    self._command(arm, {"cmd": "finish", "batch_size": bs})
        for arm in self._arms:
            self._close(arm)

    def _run_sequential(self) -> None:
        for arm in self._arms:
            self._start(arm)
            self._send(
                arm, {"cmd": "load", "config": self.config.to_dict(), "arm_index": arm.index}
            )
            self._await_done(arm)
            for bs in self.config.batch_sizes:
                if arm.failed:
                    break
                if self._command(arm, {"cmd": "prepare", "batch_size": bs}) and self._command(
                    arm, {"cmd": "measure", "batch_size": bs, "steps": self.config.steps}
                ):
                    self._command(arm, {"cmd": "finish", "batch_size": bs})
            self._close(arm)

    # -- workers ------------------------------------------------------------------------------
    def _start(self, arm: _ArmState) -> None:
        spec = self.config.arms[arm.index]
        self._publish(
            {"type": "arm_start", "arm": arm.index, "name": spec.name, "backend": spec.backend}
        )
        env = debug_env(self.config, arm.index)
        pooled = (
            self._pool.take(arm.index, self._inbox) if self._pool is not None and not env else None
        )
        arm.worker = pooled or WorkerProcess(arm.index, self._inbox, extra_env=env)

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
            other = self._arms[idx]
            kind = event.get("type")
            if kind == "_eof":
                self._on_worker_gone(other)
                continue
            event["arm"] = idx
            if kind == "error":
                other.command_failed = True
                if event.get("fatal", True):
                    other.failed = True
            if kind == "done":
                other.outcomes.append(not other.command_failed)
                other.command_failed = False
                continue
            self._publish(event)

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
        self._publish({"type": "worker_exit", "arm": arm.index, **info})
        if info["status"] not in ("normal", "stopped") and not arm.failed:
            arm.failed = True
            self._publish(
                {
                    "type": "error",
                    "arm": arm.index,
                    "kind": "crash",
                    "message": f"{self.config.arms[arm.index].name}: {info.get('message', 'worker ended unexpectedly')}",
                    "batch_size": self.session.arms[arm.index].phase_batch_size
                    if self.session.arms
                    else None,
                    "fatal": True,
                }
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
            event["arm"] = idx
            self._publish(event)

    def _close(self, arm: _ArmState) -> None:
        if arm.worker is None or arm.exited:
            return
        if self.config.save_weights and not arm.failed and not self._cancel.is_set():
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
                event["arm"] = idx
                self._publish(event)
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
                self._close(arm)

    # -- events -------------------------------------------------------------------------------
    def _publish(self, event: dict[str, Any]) -> None:
        event.setdefault("t", round(self._clock() - self._t0, 4))
        self.session.apply(event)
        for listener in self.listeners:
            listener(event)
