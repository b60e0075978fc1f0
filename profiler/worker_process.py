"""A worker process as the engine sees it: start, send commands, read events, stop, classify.

Workers are fresh interpreters (never forked: CUDA cannot be re-initialised in a fork) in their
own session, so Stop ends the worker *and* inductor's compile sub-processes. Every pipe is
drained by a thread into one queue that the runner reads.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import site
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from profiler.events import decode
from profiler.worker_handle import classify_exit

# The folder that holds this `profiler` package: a checkout, or a site-packages folder.
IMPORT_ROOT = Path(__file__).resolve().parent.parent
# The worker starts in the caller's working folder, like a script run there, so a model's own
# relative paths resolve as they would for its author; -P (Python 3.11+) keeps that folder off
# sys.path, so a `profiler.py` lying there cannot stand in for the engine.
WORKER_COMMAND = [
    sys.executable,
    *(["-P"] if sys.version_info >= (3, 11) else []),
    "-m",
    "profiler.worker",
]
TERMINATE_GRACE_S = 1.0


def worker_pythonpath(inherited: str | None) -> str:
    """The worker's PYTHONPATH: this engine's folder first when it is a checkout, so the worker
    runs the same engine as this process. An installed engine's site-packages is left where the
    interpreter puts it, after the standard library, which nothing there may shadow."""
    site_dirs = {str(Path(p).resolve()) for p in site.getsitepackages()}
    site_dirs.add(str(Path(site.getusersitepackages()).resolve()))
    own = None if str(IMPORT_ROOT) in site_dirs else str(IMPORT_ROOT)
    return os.pathsep.join(filter(None, [own, inherited]))


class WorkerProcess:
    """A `WorkerHandle` backed by a `python -m profiler.worker` child process."""

    def __init__(
        self, index: int, inbox: queue.Queue, extra_env: dict[str, str] | None = None
    ) -> None:
        self.index = index
        self._inbox = inbox
        self._threads: list[threading.Thread] = []
        self.stopped_by_us = False
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        env["PYTHONPATH"] = worker_pythonpath(env.get("PYTHONPATH"))
        if not env["PYTHONPATH"]:
            del env["PYTHONPATH"]
        env.update(extra_env or {})
        self.proc = subprocess.Popen(
            WORKER_COMMAND,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=env,
        )
        self.pid = self.proc.pid
        self._reader(self.proc.stdout, self._read_events)
        self._reader(self.proc.stderr, self._read_output)

    def _reader(self, stream: IO[bytes] | None, target) -> None:
        t = threading.Thread(
            target=target, args=(stream,), daemon=True, name=f"worker{self.index}-reader"
        )
        t.start()
        self._threads.append(t)

    def _read_events(self, stream: IO[bytes]) -> None:
        for line in stream:
            try:
                event = decode(line)
            except ValueError:
                event = {
                    "type": "log",
                    "stream": "channel",
                    "text": line.decode(errors="replace").rstrip(),
                }
            self._inbox.put((self.index, event))
        self._inbox.put((self.index, {"type": "_eof"}))

    def _read_output(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._inbox.put(
                (
                    self.index,
                    {
                        "type": "log",
                        "stream": "output",
                        "text": line.decode(errors="replace").rstrip("\n"),
                    },
                )
            )

    def rebind(self, index: int, inbox: queue.Queue) -> None:
        """Hand a pre-started worker to a run: its events go to the run's queue from now on."""
        self.index, self._inbox = index, inbox

    def send(self, command: dict[str, Any]) -> bool:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((json.dumps(command) + "\n").encode())
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait(self, timeout_s: float) -> bool:
        try:
            self.proc.wait(timeout=timeout_s)
            return True
        except subprocess.TimeoutExpired:
            return False

    def stop(self, grace_s: float = TERMINATE_GRACE_S) -> None:
        """End the worker's whole process group: terminate, then kill; always reap."""
        if self.proc.poll() is None:
            self.stopped_by_us = True
        for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        self._kill_stragglers()
        for stream in (self.proc.stdin,):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        for t in self._threads:
            t.join(timeout=2.0)

    def _kill_stragglers(self) -> None:
        # Compile sub-processes inherit the group; a SIGKILL to the group reaches any left over.
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def classify_exit(self) -> dict[str, Any]:
        return classify_exit(self.proc.poll(), self.stopped_by_us)
