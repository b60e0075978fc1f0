"""The worker dies with the engine that started it, and takes its process group along.

On Linux the kernel sends SIGKILL the moment the parent goes (PR_SET_PDEATHSIG, set at start;
right after setting it the parent is checked, in case it went before). Everywhere, a watchdog
thread polls the parent's pid and, once the worker is orphaned, kills the worker's whole group
(the worker leads its own: the engine starts it in a new session), so a killed app or CLI never
leaves a worker computing or holding a GPU. No torch here: this runs first. And it ends
without the interpreter's teardown (`quick_exit`: a worker, a rank, a rank's launcher).
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import NoReturn

PARENT_PID_ENV = "TCPROF_PARENT_PID"  # set by profiler/process/local.py
PR_SET_PDEATHSIG = 1
POLL_S = 0.5


def hold(parent_pid: int | None = None) -> None:
    """Tie this process to its parent (the engine's pid from the environment, else the current
    parent): die at once if it is already gone, and whenever it goes later."""
    if parent_pid is None:
        parent_pid = int(os.environ.get(PARENT_PID_ENV) or os.getppid())
    _set_parent_death_signal()
    if os.getppid() != parent_pid:
        end_group()
    threading.Thread(
        target=watch, args=(parent_pid, end_group), daemon=True, name="tcprof-parent-watch"
    ).start()


def _set_parent_death_signal() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # the watchdog still ends the worker, within POLL_S


def watch(parent_pid: int, on_orphaned: Callable[[], None], poll_s: float = POLL_S) -> None:
    """Return after calling on_orphaned once this process's parent is no longer parent_pid."""
    while os.getppid() == parent_pid:
        time.sleep(poll_s)
    on_orphaned()


def end_group() -> None:
    """Kill this worker and its whole process group (a model's children too) — but only a
    group it leads: a worker started by hand in a shell's group kills itself alone."""
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpid(), signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


# A process that outlives the worker only to end the worker's group: run with `python -I -c`.
_REAPER = """
import ctypes, os, signal, sys, time
worker = int(sys.argv[1])
class Gone(Exception):
    pass
def gone(signum, frame):
    raise Gone
signal.signal(signal.SIGUSR1, gone)
try:
    ctypes.CDLL(None).prctl(1, int(signal.SIGUSR1), 0, 0, 0)
except (OSError, AttributeError):
    pass
try:
    while os.getppid() == worker:
        time.sleep(0.5)
except Gone:
    pass
if os.getpgrp() == worker:
    os.killpg(worker, signal.SIGKILL)
"""


def start_group_reaper() -> int | None:
    """A script's own children (DataLoader workers, anything it starts) die with the worker,
    even when the worker is killed: the kernel's parent-death signal kills the worker at once,
    with no chance to end its group, so a small process in the group waits for the worker to
    go (its own parent-death signal, or its parent's pid changing) and then kills the group.
    The engine kills the group whenever it ends a worker; this covers the engine itself being
    killed. Only in a worker that leads its group (as the engine starts them); the reaper's pid,
    or None."""
    import subprocess

    if os.getpgrp() != os.getpid() or not hasattr(os, "killpg"):
        return None
    proc = subprocess.Popen(
        [sys.executable, "-I", "-c", _REAPER, str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
    )
    return proc.pid


def quick_exit(code: int) -> NoReturn:
    """End without the interpreter's teardown. With torch and TorchDynamo loaded it takes over
    a second here, for every worker of every round, and nothing the run needs happens in it:
    events are written unbuffered, artefacts are closed by the commands that write them. What
    could still be buffered is flushed first (logging's handlers, TORCH_TRACE's files among
    them, and the standard streams); the engine ends whatever the worker started (its process
    group) once it has gone."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
