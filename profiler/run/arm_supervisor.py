"""The workers of one round as the schedule sees them: start, command, wait, relay, end.

One worker per arm. Commands are answered asynchronously on one queue shared by the round's
workers, so while the schedule waits for one arm the others' events are relayed too (loads run
in parallel) and their outcomes kept for when they are awaited.

A worker may end only when told to (`exit`) or stopped by the engine. Any other end (its event
channel closes, or its process is found dead while the schedule waits) is the arm's fatal
`crash` error, explained by worker_end.py. A busy worker that makes no progress for the stall
timeout (stall_watch.py) is stopped with a fatal `stall` error. Cancel, the run's timeout, the
workers' liveness and their progress are checked every POLL_S while waiting.
"""

from __future__ import annotations

import collections
import os
import queue
import threading
from collections.abc import Callable
from typing import Any

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.process import worker_end
from tcprof.profiler.process.handle import Inbox, WorkerFactory, WorkerHandle
from tcprof.profiler.process.pool import WorkerPool
from tcprof.profiler.process.stall_watch import CpuTime, ProgressWatch, process_tree_cpu_s
from tcprof.profiler.protocol.types import Event
from tcprof.profiler.protocol.wire import screen_hello

POLL_S = 0.1
EXIT_WAIT_S = 10.0  # an `exit` command is answered within this, else the worker is stopped
REAP_WAIT_S = 5.0  # after its channel closed, a process has this long to end by itself
EXIT_LAG_S = 0.2  # an exiting process's pipes close a moment before it can be reaped
DEAD_GRACE_S = 0.5  # a dead worker's channel should close within this (a child may hold it)
STACKS_WAIT_S = 0.3  # for a stalled worker to print its stacks before it is stopped


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
        self.phase: str | None = None  # of the command running now (None: not announced)
        self.pending: list[dict[str, Any]] = []  # commands sent and not yet done, oldest first
        self.told_to_exit = False
        self.dead_since: float | None = None  # found dead while its channel was still open
        self.progress: ProgressWatch | None = None

    def where(self) -> str | None:
        """What the worker is doing, in words (None: nothing)."""
        command = self.pending[0] if self.pending else None
        return worker_end.place(self.phase, command, self.batch_size)


class ArmSupervisor:
    def __init__(
        self,
        factory: WorkerFactory,
        publish: Callable[[Event], None],
        cancel: threading.Event,
        clock: Callable[[], float],
        timeout_s: float | None = None,
        pool: WorkerPool | None = None,
        stall_timeout_s: float | None = None,
        cpu_time: CpuTime = process_tree_cpu_s,
    ) -> None:
        """publish: where every relayed event goes, tagged with `arm` and `replicate`.
        stall_timeout_s: None or 0, no stall timeout. cpu_time: a pid's CPU seconds (tests
        pass their own)."""
        self._factory = factory
        self._publish = publish
        self._cancel = cancel
        self._clock = clock
        self._timeout_s = timeout_s
        self._pool = pool
        self._stall_s = stall_timeout_s or None
        self._cpu_time = cpu_time
        self.deadline: float | None = None  # on the clock; set when the run starts
        self.replicate: int | str | None = None
        self.arms: list[ArmState] = []
        self._inbox: Inbox = queue.Queue()
        self._held: collections.deque[tuple[int, Event]] = collections.deque()
        self._next_watch = 0.0

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
        if self._stall_s:
            cpu_time = getattr(arm.worker, "cpu_time", None) or self._cpu_time  # remote: its own
            arm.progress = ProgressWatch(self._stall_s, cpu_time, self._clock())

    def send(self, arm: ArmState, command: dict[str, Any]) -> None:
        assert arm.worker is not None
        if command.get("cmd") == "exit":
            arm.told_to_exit = True
        else:
            arm.pending.append(command)
        if arm.progress is not None:
            arm.progress.note(self._clock())
        if not arm.worker.send(command) and not arm.exited:
            self._on_worker_gone(arm, lost="command pipe")  # it ended, or closed the pipe

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
            event = self._next_event()
            if event is not None:
                self._handle(*event)

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
        self._close_together([arm])

    def shutdown(self, force: bool) -> None:
        """End every worker still running: at once (force), else all asked to exit together."""
        running = [a for a in self.arms if a.worker is not None and not a.exited]
        if not force:
            self._close_together(running)
            return
        for arm in running:
            assert arm.worker is not None
            arm.worker.stop()
            self._on_worker_gone(arm, by_engine=True)

    def _close_together(self, arms: list[ArmState]) -> None:
        """Ask each worker to exit, then wait for them all: their interpreters end side by side
        (ending one with torch loaded takes most of a second), and a worker that has not
        exited within EXIT_WAIT_S is stopped."""
        asked = [a for a in arms if a.worker is not None and not a.exited]
        for arm in asked:
            self.send(arm, {"cmd": "exit"})
        deadline = self._clock() + EXIT_WAIT_S
        while any(not a.exited for a in asked) and self._clock() < deadline:
            try:
                self._handle(*self._take(POLL_S))
            except queue.Empty:
                continue
        for arm in asked:
            if not arm.exited and arm.worker is not None:
                arm.worker.stop()
                self._on_worker_gone(arm, by_engine=True)

    def kill_all(self) -> None:
        """End every worker of the round without a word: the run is failing (perhaps in
        publishing itself), and no process may outlive it."""
        for arm in self.arms:
            if arm.worker is not None:
                try:
                    arm.worker.stop(grace_s=0.2)
                except Exception:
                    pass

    # -- events ---------------------------------------------------------------------------------
    def _handle(self, idx: int, event: Event) -> None:
        """Fold one worker event into its arm's state; relay what listeners should see."""
        arm = self.arms[idx]
        if arm.progress is not None:
            arm.progress.note(self._clock())
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
            if arm.pending:
                arm.pending.pop(0)
            arm.phase = None
            arm.outcomes.append(not arm.command_failed)
            arm.command_failed = False
            return
        if kind != "bye":  # the answer to `exit`: nothing to tell
            self._relay(idx, event)

    def _relay(self, idx: int, event: Event) -> None:
        if event.get("type") == "phase":
            arm = self.arms[idx]
            arm.batch_size = event.get("batch_size")
            arm.phase = event.get("phase")
        self._publish(self._tag(idx, event))

    def _tag(self, idx: int, event: Event) -> Event:
        event["arm"] = idx
        event["replicate"] = self.replicate
        return event

    def _next_event(self) -> tuple[int, Event] | None:
        """The next worker event; None when a worker was found dead or stalled meanwhile (the
        caller's arm may be the one)."""
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
            if self._watch_workers():
                return None
            try:
                return self._take(POLL_S)
            except queue.Empty:
                continue

    # -- liveness and progress ------------------------------------------------------------------
    def _watch_workers(self) -> bool:
        """Every POLL_S: a worker found dead is reaped even if its channel stays open (a child
        it forked holds it); a busy one that made no progress is stopped. True if one was."""
        now = self._clock()
        if now < self._next_watch:
            return False
        self._next_watch = now + POLL_S
        ended = False
        for arm in self.arms:
            worker = arm.worker
            if worker is None or arm.exited:
                continue
            if not worker.alive():
                arm.dead_since = arm.dead_since if arm.dead_since is not None else now
                if now - arm.dead_since >= DEAD_GRACE_S:
                    self._on_worker_gone(arm)
                    ended = True
            elif arm.pending and arm.progress and arm.progress.stalled(worker.pid, arm.phase, now):
                self._on_stall(arm)
                ended = True
        return ended

    def _on_stall(self, arm: ArmState) -> None:
        assert arm.worker is not None and arm.progress is not None
        arm.failed = True
        where = arm.where() or "an unannounced phase"
        arm.worker.dump_stacks()  # where it is stuck, in its output
        self._cancel.wait(STACKS_WAIT_S)
        straggler = getattr(arm.worker, "straggler", None)  # a distributed arm: which rank
        behind = straggler() if callable(straggler) else None
        arm.worker.stop()
        self._on_worker_gone(arm, by_engine=True)  # relays its output: the stacks among it
        stall = {
            "type": "error",
            "kind": "stall",
            "message": f"{arm.spec.name}: stalled in {where} "
            f"(no progress for {arm.progress.timeout_s:g} s)" + (f"; {behind}" if behind else ""),
            "traceback": worker_end.output_details(arm.worker.output_tail()),
            "batch_size": arm.batch_size,
            "fatal": True,
        }
        self._publish(self._tag(arm.index, stall))

    # -- a worker's end -------------------------------------------------------------------------
    def _on_worker_gone(
        self, arm: ArmState, by_engine: bool = False, lost: str = "event channel"
    ) -> None:
        """Reap the worker and its group, relay its last events, and explain an end that was
        not asked for (by_engine: the engine stopped it, and said why if it had to; lost: the
        pipe whose end was noticed, if the process still ran then)."""
        if arm.exited or arm.worker is None:
            return
        arm.exited = True
        worker = arm.worker
        closed = None
        if not by_engine and not worker.wait(EXIT_LAG_S):  # still running: it closed the pipe
            closed = lost
            worker.wait(REAP_WAIT_S)
        worker.stop()  # the whole group, even after a normal exit; its output read to the end
        info = worker.classify_exit()
        self._drain_output(arm)
        self._publish(self._tag(arm.index, {"type": "worker_exit", **info}))
        asked = arm.told_to_exit and not arm.pending and info["status"] == "normal"
        if by_engine or asked or arm.failed:
            return
        arm.failed = True
        tail = worker.output_tail()
        message = worker_end.end_message(info, arm.where(), closed)
        first = getattr(worker, "first_to_end", None)  # a distributed arm: which rank
        ended = first() if callable(first) else None
        message = worker_end.with_last_words(f"{ended}; {message}" if ended else message, tail)
        reason = getattr(worker, "end_reason", None)  # a remote host: ssh, not the worker, failed
        message = (reason(arm.where()) if callable(reason) else None) or message
        crash = {
            "type": "error",
            "kind": "crash",
            "message": f"{arm.spec.name}: {message}",
            "traceback": worker_end.output_details(tail),
            "batch_size": arm.batch_size,
            "fatal": True,
        }
        self._publish(self._tag(arm.index, crash))

    def _drain_output(self, arm: ArmState) -> None:
        """Fold and relay what is still queued of an ended worker (a crash's last words)
        without blocking; the other arms' events are kept, in order, for their own waits."""
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
            else:
                self._handle(idx, event)  # an `_eof` now changes nothing: the arm has exited

    def _take(self, timeout_s: float) -> tuple[int, Event]:
        """The next event: those held back by a drain first, then the queue's."""
        if self._held:
            return self._held.popleft()
        return self._inbox.get(timeout=timeout_s)
