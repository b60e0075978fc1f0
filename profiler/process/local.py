"""A worker process as the engine sees it: start, send commands, read events, stop, classify.

Timed workers are fresh interpreters; untimed ones (inspection, the accuracy pass) are forked
from the engine's fork server (forked.py: torch imported once, never CUDA) when that starts
them in the same state. Either way each leads its own session, so Stop ends the worker *and* whatever it started (inductor's compile
sub-processes, a model's own children): the whole process group is killed whenever a worker
ends, normally or not. Commands go through a private pipe (its fd number in TCPROF_COMMAND_FD);
the model's stdin is /dev/null and breakpoint() is off, so a model that reads input fails at
once instead of eating commands or waiting forever. Every pipe is drained by a thread into one
queue that the runner reads; log lines are bounded (log_limit.py) and the last lines of the
worker's output are kept for the error that explains an unexpected end.

Workers are started from one long-lived thread (`_Spawner`): a worker dies with its parent
(lifeline.py: Linux's parent-death signal), and that signal fires when the *thread* that
started it ends.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import queue
import signal
import site
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any

import tcprof
from tcprof.profiler.process.forked import (
    START_TIMEOUT_S,
    ForkedChild,
    fork_server,
    may_fork,
)
from tcprof.profiler.process.handle import Inbox, OwnProcess, classify_exit
from tcprof.profiler.process.log_limit import LogLimiter
from tcprof.profiler.protocol.wire import decode

# The folder that holds the `tcprof` package: a checkout, or a site-packages folder.
IMPORT_ROOT = Path(tcprof.__file__).resolve().parent.parent
# The worker starts in the caller's working folder, like a script run there, so a model's own
# relative paths resolve as they would for its author; -P (Python 3.11+) keeps that folder off
# sys.path, so a `profiler.py` lying there cannot stand in for the engine.
WORKER_COMMAND = [
    sys.executable,
    *(["-P"] if sys.version_info >= (3, 11) else []),
    "-m",
    "tcprof.profiler.worker",
]
FORK_SERVER_COMMAND = WORKER_COMMAND[:-1] + ["tcprof.profiler.worker.zygote"]
# The worker under another interpreter (an arm's `python=`), whose version is not known here:
# `-P`'s effect spelled out (the working folder off sys.path), for any Python 3.
_FOREIGN_MAIN = (
    "import runpy, sys; del sys.path[0]; "
    "runpy.run_module('tcprof.profiler.worker', run_name='__main__', alter_sys=True)"
)
# Read by profiler/worker/__main__.py and profiler/worker/lifeline.py (no import: no torch here).
COMMAND_FD_ENV = "TCPROF_COMMAND_FD"
PARENT_PID_ENV = "TCPROF_PARENT_PID"
TERMINATE_GRACE_S = 1.0
READER_JOIN_S = 2.0  # a reader still open after the group died: a child escaped the group
OUTPUT_TAIL_LINES = 200  # of the worker's stderr, kept for the error that explains its end
MAX_LINE_BYTES = 8192  # a longer line is cut (a model printing without a newline)


def worker_pythonpath(inherited: str | None) -> str:
    """The worker's PYTHONPATH: this engine's folder first when it is a checkout, so the worker
    runs the same engine as this process. An installed engine's site-packages is left where the
    interpreter puts it, after the standard library, which nothing there may shadow."""
    site_dirs = {str(Path(p).resolve()) for p in site.getsitepackages()}
    site_dirs.add(str(Path(site.getusersitepackages()).resolve()))
    own = None if str(IMPORT_ROOT) in site_dirs else str(IMPORT_ROOT)
    return os.pathsep.join(filter(None, [own, inherited]))


def foreign_command(python: str) -> list[str]:
    """The worker started by another interpreter (an arm's `python=`)."""
    return [python, "-c", _FOREIGN_MAIN]


def foreign_pythonpath(inherited: str | None) -> str:
    """Another interpreter's PYTHONPATH: it reaches this tcprof, which it may not have
    installed, through a folder that holds only `tcprof` (a link), so an installed engine's
    site-packages, with this environment's torch, never stands before that interpreter's own."""
    folder = Path(tempfile.gettempdir()) / f"tcprof-import-{os.getuid()}-{_root_key()}"
    link = folder / "tcprof"
    if not link.exists():
        folder.mkdir(parents=True, exist_ok=True)
        try:
            link.symlink_to(IMPORT_ROOT / "tcprof", target_is_directory=True)
        except FileExistsError:  # another process made it meanwhile
            pass
    return os.pathsep.join(filter(None, [str(folder), inherited]))


def _root_key() -> str:
    return hashlib.sha1(str(IMPORT_ROOT).encode()).hexdigest()[:12]


# A Popen for the spawner thread: (args, the fd to close after, Popen's options, the answer).
_Request = tuple[list[str], int | None, dict[str, Any], Future[subprocess.Popen[Any]]]


class _Spawner:
    """Runs every Popen of a worker on one daemon thread that lives as long as this process."""

    def __init__(self) -> None:
        self._requests: queue.Queue[_Request] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def popen(
        self, args: list[str], close_after: int | None, **kwargs: Any
    ) -> subprocess.Popen[Any]:
        """Popen(args, **kwargs) on the spawner thread, which then closes fd `close_after`
        (the child's end of a pipe, if any), also when the caller was interrupted meanwhile."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._serve, daemon=True, name="tcprof-worker-spawner"
                )
                self._thread.start()
        started: Future[subprocess.Popen[Any]] = Future()
        self._requests.put((args, close_after, kwargs, started))
        try:
            return started.result()
        except BaseException:  # interrupted (Ctrl+C): a worker started anyway is ended
            started.add_done_callback(_end_abandoned)
            raise

    def _serve(self) -> None:
        while True:
            args, close_after, kwargs, started = self._requests.get()
            try:
                started.set_result(subprocess.Popen(args, **kwargs))
            except BaseException as exc:  # handed to the caller, who raises it
                started.set_exception(exc)
            finally:
                if close_after is not None:
                    os.close(close_after)


def _end_abandoned(started: Future[subprocess.Popen[Any]]) -> None:
    if started.exception() is None:
        try:
            os.killpg(started.result().pid, signal.SIGKILL)
        except OSError:
            pass


SPAWNER = _Spawner()


def worker_env(
    extra_env: dict[str, str] | None, command_fd: int | None, foreign: bool = False
) -> dict[str, str]:
    """foreign: for another interpreter than this one (an arm's `python=`)."""
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONBREAKPOINT"] = "0"  # breakpoint() in a model: no debugger waiting on a terminal
    path_of = foreign_pythonpath if foreign else worker_pythonpath
    env["PYTHONPATH"] = path_of(env.get("PYTHONPATH"))
    if not env["PYTHONPATH"]:
        del env["PYTHONPATH"]
    if command_fd is not None:
        env[COMMAND_FD_ENV] = str(command_fd)
    env[PARENT_PID_ENV] = str(os.getpid())
    env.update(extra_env or {})
    return env


class WorkerProcess(OwnProcess):
    """A `WorkerHandle` backed by a `python -m tcprof.profiler.worker` child process."""

    def __init__(
        self,
        index: int,
        inbox: Inbox,
        extra_env: dict[str, str] | None = None,
        wait_for_fork_server: bool = True,
        timed: bool = True,
        python: str | None = None,
    ) -> None:
        """timed=False: no figure is read from its steps, so it may be forked (forked.py);
        wait_for_fork_server=False: spawn fresh rather than wait for a fork server still
        importing torch (the window's pre-started workers, filled from the GUI thread);
        python: another interpreter (an arm's `python=`), always a fresh process of its own,
        never forked from the fork server, whose torch is this environment's."""
        self.index = index
        self._inbox = inbox
        self._threads: list[threading.Thread] = []
        self.stopped_by_us = False
        self._output_tail: collections.deque[str] = collections.deque(maxlen=OUTPUT_TAIL_LINES)
        self._output_limit = LogLimiter(self._put)
        self._channel_limit = LogLimiter(self._put)
        self.proc: subprocess.Popen[bytes] | ForkedChild
        fork = python is None and may_fork(timed)
        forked = _forked(extra_env, wait_for_fork_server) if fork else None
        if forked is not None:
            self.proc = forked
            write_fd = forked.commands_fd
        else:
            read_fd, write_fd = os.pipe()
            try:
                self.proc = SPAWNER.popen(
                    WORKER_COMMAND if python is None else foreign_command(python),
                    close_after=read_fd,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    pass_fds=(read_fd,),
                    start_new_session=True,
                    env=worker_env(extra_env, read_fd, foreign=python is not None),
                )
            except BaseException:
                os.close(write_fd)
                raise
        self.forked = forked is not None
        self._commands = os.fdopen(write_fd, "wb")
        self.pid = self.proc.pid
        self._reader(self.proc.stdout, self._read_events)
        self._reader(self.proc.stderr, self._read_output)

    def _reader(self, stream: IO[bytes] | None, target: Callable[[IO[bytes]], None]) -> None:
        t = threading.Thread(
            target=target, args=(stream,), daemon=True, name=f"worker{self.index}-reader"
        )
        t.start()
        self._threads.append(t)

    def _put(self, event: dict[str, Any]) -> None:
        self._inbox.put((self.index, event))

    def _read_events(self, stream: IO[bytes]) -> None:
        for line in stream:
            try:
                event = decode(line)
            except ValueError:
                text = line.decode(errors="replace").rstrip()
                event = {"type": "log", "stream": "channel", "text": text}
            if event.get("type") == "log":
                self._channel_limit.offer(event)
            else:
                self._put(event)
        self._channel_limit.finish()
        self._put({"type": "_eof"})

    def _read_output(self, stream: IO[bytes]) -> None:
        for text in bounded_lines(stream):
            self._output_tail.append(text)
            self._output_limit.offer({"type": "log", "stream": "output", "text": text})
        self._output_limit.finish()

    def rebind(self, index: int, inbox: Inbox) -> None:
        """Hand a pre-started worker to a run: its events go to the run's queue from now on."""
        self.index, self._inbox = index, inbox

    def send(self, command: dict[str, Any]) -> bool:
        try:
            self._commands.write((json.dumps(command) + "\n").encode())
            self._commands.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def stop(self, grace_s: float = TERMINATE_GRACE_S) -> None:
        """End the worker's whole process group (terminate, then kill), reap it, and read its
        output to the end. Also after the worker exited by itself: its children go too."""
        if self.proc.poll() is None:
            self.stopped_by_us = True
        self.end_group(grace_s)
        try:
            self._commands.close()
        except OSError:
            pass
        for t in self._threads:
            t.join(timeout=READER_JOIN_S)
        self._output_limit.finish()
        self._channel_limit.finish()

    def dump_stacks(self) -> None:
        """Ask the worker for its threads' Python stacks (faulthandler, on stderr)."""
        if self.proc.poll() is None and hasattr(signal, "SIGUSR1"):
            try:
                os.kill(self.pid, signal.SIGUSR1)
            except OSError:
                pass

    def output_tail(self) -> list[str]:
        return list(self._output_tail)

    def classify_exit(self) -> dict[str, Any]:
        return classify_exit(self.proc.poll(), self.stopped_by_us)


def _forked(extra_env: dict[str, str] | None, wait: bool) -> ForkedChild | None:
    """A worker forked from the fork server, when it starts as a fresh one would; else None."""
    server = fork_server(FORK_SERVER_COMMAND, worker_env(None, None), SPAWNER.popen)
    env = worker_env(extra_env, None)
    if server is None or not server.serves(env):
        return None
    if not server.wait_ready(START_TIMEOUT_S if wait else 0.0):
        return None
    try:
        return server.fork(env, os.getcwd())
    except OSError:
        return None


def bounded_lines(stream: IO[bytes]) -> Iterator[str]:
    """The stream's lines as text, each cut at MAX_LINE_BYTES (the rest is counted, not kept)."""
    while True:
        line = stream.readline(MAX_LINE_BYTES)
        if not line:
            return
        skipped = 0
        if not line.endswith(b"\n"):
            while True:  # the rest of an over-long line
                rest = stream.readline(MAX_LINE_BYTES)
                if not rest:
                    break
                skipped += len(rest)
                if rest.endswith(b"\n"):
                    skipped -= 1
                    break
        text = line.decode(errors="replace").rstrip("\n")
        yield f"{text} … [{skipped:,} more bytes]" if skipped else text
