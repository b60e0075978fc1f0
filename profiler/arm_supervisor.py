"""The workers of one round as the schedule sees them: start, command, wait, relay, end.

One worker per arm. Commands are answered asynchronously on one queue shared by the round's
workers, so while the schedule waits for one arm the others' events are relayed too (loads run
in parallel) and their outcomes kept for when they are awaited. A worker whose channel closes
is reaped and its exit classified; an unexpected exit is the arm's fatal `crash` error. Cancel
and the run's timeout are checked every POLL_S while waiting.
"""

from __future__ import annotations

import collections
import os
import queue
import threading
from collections.abc import Callable
from typing import Any

from profiler.config import ArmSpec
from profiler.events import screen_hello
from profiler.worker_handle import WorkerFactory, WorkerHandle
from profiler.worker_pool import WorkerPool

Event = dict[str, Any]
POLL_S = 0.1
EXIT_WAIT_S = 10.0  # an `exit` command is answered within this, else the worker is stopped
REAP_WAIT_S = 5.0  # after its channel closed, a process has this long to end by itself


class RunStopped(Exception):
    """Raised inside the run loop when the user stops or the run times out."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


class ArmState:
    """One arm's worker within a round, and what the schedule knows of it."""

    def __init__(self, index: int, spec: ArmSpec) -> None:
        self.index = index
        self.spec = spec
        self.worker: WorkerHandle | None = None
        self.failed = False  # a fatal error: no more batch sizes for this arm in this round
        self.exited = False
        self.outcomes: list[bool] = []  # finished commands not yet awaited
        self.command_failed = False
        self.batch_size: int | None = None  # of its latest phase: where a crash happened


class ArmSupervisor:
    def __init__(
        self,
        factory: WorkerFactory,
        publish: Callable[[Event], None],
        cancel: threading.Event,
        clock: Callable[[], float],
        timeout_s: float | None = None,
        pool: WorkerPool | None = None,
    ) -> None:
        """publish: where every relayed event goes, tagged with `arm` and `replicate`."""
        self._factory = factory
        self._publish = publish
        self._cancel = cancel
        self._clock = clock
        self._timeout_s = timeout_s
        self._pool = pool
        self.deadline: float | None = None  # on the clock; set when the run starts
        self.replicate: int | str | None = None
        self.arms: list[ArmState] = []
        self._inbox: queue.Queue = queue.Queue()
        self._held: collections.deque[tuple[int, Event]] = collections.deque()

    def begin(self, replicate: int | str, specs: tuple[ArmSpec, ...]) -> list[ArmState]:
        """A new round: fresh arm states and a fresh queue, so a stale event of an earlier
        round's worker never reaches this one."""
        self.replicate = replicate
        self._inbox = queue.Queue()
        self._held.clear()
        self.arms = [ArmState(i, spec) for i, spec in enumerate(specs)]
        return self.arms

    # -- starting and commanding ----------------------------------------------------------------
    def start(self, arm: ArmState, env: dict[str, str], pooled: bool) -> None:
        """A worker for `arm`: a pre-started one when allowed and ready, else a fresh one."""
        worker = None
        if pooled and self._pool is not None and not env:
            worker = self._pool.take(arm.index, self._inbox)
        arm.worker = worker or self._factory(arm.index, self._inbox, env)

    def send(self, arm: ArmState, command: dict[str, Any]) -> None:
        assert arm.worker is not None
        arm.worker.send(command)

    def command(self, arm: ArmState, command: dict[str, Any]) -> bool:
        """Send a command and wait for it; False if it failed (the arm may go on if not fatal)."""
        if arm.failed or arm.worker is None:
            return False
        self.send(arm, command)
        return self.await_done(arm)

    def await_done(self, arm: ArmState) -> bool:
        """Relay events until `arm` finishes its command; True if it succeeded.

        Other arms may finish commands meanwhile (loads run in parallel); their outcomes are
        queued for when they are awaited."""
        while True:
            if arm.outcomes:
                return arm.outcomes.pop(0) and not arm.failed
            if arm.exited:
                return False
            self._handle(*self._next_event())

    def peer_pids(self, arm: ArmState) -> list[int]:
        """The processes a timed block waits on to be idle: this one and the other workers."""
        return [os.getpid()] + [
            a.worker.pid
            for a in self.arms
            if a is not arm and a.worker is not None and not a.exited
        ]

    # -- ending ---------------------------------------------------------------------------------
    def close(self, arm: ArmState) -> None:
        """Ask the worker to exit; stop it if it has not within EXIT_WAIT_S."""
        if arm.worker is None or arm.exited:
            return
        arm.worker.send({"cmd": "exit"})
        deadline = self._clock() + EXIT_WAIT_S
        while not arm.exited and self._clock() < deadline:
            try:
                self._handle(*self._take(POLL_S))
            except queue.Empty:
                continue
        if not arm.exited:
            arm.worker.stop()
            self._on_worker_gone(arm)

    def shutdown(self, force: bool) -> None:
        """End every worker still running: at once (force), else each asked to exit."""
        for arm in self.arms:
            if arm.worker is None or arm.exited:
                continue
            if force:
                arm.worker.stop()
                self._on_worker_gone(arm)
            else:
                self.close(arm)

    # -- events ---------------------------------------------------------------------------------
    def _handle(self, idx: int, event: Event) -> None:
        """Fold one worker event into its arm's state; relay what listeners should see."""
        arm = self.arms[idx]
        event = screen_hello(event)  # a worker of another protocol version: a fatal error
        kind = event.get("type")
        if kind == "_eof":
            self._on_worker_gone(arm)
            return
        if kind == "error":
            arm.command_failed = True
            if event.get("fatal", True):
                arm.failed = True
        if kind == "done":
            arm.outcomes.append(not arm.command_failed)
            arm.command_failed = False
            return
        if kind != "bye":  # the answer to `exit`: nothing to tell
            self._relay(idx, event)

    def _relay(self, idx: int, event: Event) -> None:
        if event.get("type") == "phase":
            self.arms[idx].batch_size = event.get("batch_size")
        self._publish(self._tag(idx, event))

    def _tag(self, idx: int, event: Event) -> Event:
        event["arm"] = idx
        event["replicate"] = self.replicate
        return event

    def _next_event(self) -> tuple[int, Event]:
        while True:
            if self._cancel.is_set():
                raise RunStopped("stopped")
            if self.deadline is not None and self._clock() > self.deadline:
                self._publish(
                    {
                        "type": "error",
                        "kind": "timeout",
                        "message": f"the run passed its {self._timeout_s:g} s timeout",
                        "fatal": True,
                    }
                )
                raise RunStopped("timeout")
            try:
                return self._take(POLL_S)
            except queue.Empty:
                continue

    def _on_worker_gone(self, arm: ArmState) -> None:
        if arm.exited or arm.worker is None:
            return
        arm.exited = True
        if not arm.worker.wait(REAP_WAIT_S):
            arm.worker.stop()
        info = arm.worker.classify_exit()
        self._drain_output(arm)
        self._publish(self._tag(arm.index, {"type": "worker_exit", **info}))
        if info["status"] not in ("normal", "stopped") and not arm.failed:
            arm.failed = True
            message = info.get("message", "worker ended unexpectedly")
            crash = {
                "type": "error",
                "kind": "crash",
                "message": f"{arm.spec.name}: {message}",
                "batch_size": arm.batch_size,
                "fatal": True,
            }
            self._publish(self._tag(arm.index, crash))

    def _drain_output(self, arm: ArmState) -> None:
        """Relay what is still queued of an ended worker (a crash's last words) without
        blocking; the other arms' events are kept, in order, for their own waits."""
        pending = list(self._held)
        self._held.clear()
        while True:
            try:
                pending.append(self._inbox.get_nowait())
            except queue.Empty:
                break
        for idx, event in pending:
            if idx != arm.index:
                self._held.append((idx, event))
            elif event.get("type") not in ("_eof", "done"):
                self._relay(idx, event)

    def _take(self, timeout_s: float) -> tuple[int, Event]:
        """The next event: those held back by a drain first, then the queue's."""
        if self._held:
            return self._held.popleft()
        return self._inbox.get(timeout=timeout_s)
