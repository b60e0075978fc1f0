"""What the runner needs of a worker, written down: the seam between the schedule and processes.

A worker is started by a `WorkerFactory(index, inbox, extra_env)`. It takes one JSON command at
a time through `send`, and puts `(index, event)` pairs on `inbox` as it answers; when its event
channel closes (the process ended, however) it puts `(index, {"type": "_eof"})`. Every command
ends with a `done` event (`failed: true` after an `error`). A worker ends only when sent `exit`
or stopped; the engine treats any other end as an error of its arm, explained with the worker's
last output (`output_tail`). `WorkerProcess` is the real one; the tests drive the runner's
schedule with a scripted fake that keeps the same promises.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
from collections.abc import Callable
from typing import Any, Protocol, TypeAlias, runtime_checkable

from tcprof.profiler.protocol.types import Event

KILL_WAIT_S = 5.0  # after SIGKILL, for the process to be reaped


class Proc(Protocol):
    """What OwnProcess uses of its process: a `subprocess.Popen`, or a forked worker's
    stand-in (profiler/process/forked.py)."""

    pid: int

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...


class OwnProcess:
    """`alive`, `wait` and `signal_group` for a handle whose worker, launcher or ssh client is
    `self.proc`, started as the leader of its own process group (`pid`)."""

    proc: Proc
    pid: int
    _group_gone: bool = False

    def signal_group(self, sig: int) -> None:
        """Signal the process's whole group (what it started goes too). Once the group is
        empty its id may be reused by an unrelated process: never again."""
        if self._group_gone:
            return
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            self._group_gone = True
        except PermissionError:
            pass

    def end_group(self, grace_s: float, head_start_s: float = 0.0) -> None:
        """End the process and its group, the one way every handle does: SIGTERM, SIGKILL when it
        is still there after `grace_s`, and SIGKILL again for whatever of the group outlived it
        (also when it had already ended by itself). `head_start_s`: time it may first take to
        end on its own (ssh, once the agent's stdin is closed)."""
        steps = [(None, head_start_s)] if head_start_s > 0 else []
        for sig, wait_s in (*steps, (signal.SIGTERM, grace_s), (signal.SIGKILL, KILL_WAIT_S)):
            if sig is not None:
                self.signal_group(sig)
            if self.wait(wait_s):
                break
        self.signal_group(signal.SIGKILL)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait(self, timeout_s: float) -> bool:
        try:
            self.proc.wait(timeout=timeout_s)
            return True
        except subprocess.TimeoutExpired:
            return False


@runtime_checkable
class WorkerHandle(Protocol):
    index: int
    pid: int

    def send(self, command: dict[str, Any]) -> bool:
        """Queue a command; False if the worker can no longer read."""
        ...

    def alive(self) -> bool: ...

    def wait(self, timeout_s: float) -> bool:
        """Wait for the process to end; True if it has."""
        ...

    def stop(self, grace_s: float = ...) -> None:
        """End the worker and whatever it started (also after it exited by itself), reap it,
        and read its output to the end. Safe to call more than once."""
        ...

    def dump_stacks(self) -> None:
        """Ask a live worker to print its Python stacks to its output (a stalled one)."""
        ...

    def output_tail(self) -> list[str]:
        """The last lines the worker printed (stderr), oldest first."""
        ...

    def classify_exit(self) -> dict[str, Any]:
        """How the process ended: see `classify_exit` below."""
        ...


# Where a worker puts (its arm index, an event) for the engine to read.
Inbox: TypeAlias = queue.Queue[tuple[int, Event]]
WorkerFactory = Callable[[int, Inbox, dict[str, str]], WorkerHandle]


def classify_exit(code: int | None, stopped_by_us: bool) -> dict[str, Any]:
    """An exit code as the session records it: running, normal, stopped (by the engine),
    signal (with a hint when SIGKILL may be the out-of-memory killer) or error."""
    if code is None:
        return {"status": "running", "code": None}
    if code == 0:
        return {"status": "normal", "code": 0}
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        if stopped_by_us:
            return {"status": "stopped", "code": code, "signal": name}
        hint = " (possibly the out-of-memory killer)" if -code == signal.SIGKILL else ""
        return {
            "status": "signal",
            "code": code,
            "signal": name,
            "message": f"worker killed by {name}{hint}",
        }
    return {"status": "error", "code": code, "message": f"worker exited with code {code}"}
