"""The agent on the remote host: `python -m tcprof.profiler.remote.agent`, started by ssh.

It says which tcprof, protocol and torch it has, receives the model's files and the weights into
a private temporary folder, starts the worker there (one process, or torchrun and its ranks,
through the same handles a local run uses), relays commands in and events out over its own
stdin/stdout as frames (frames.py), and sends back what the worker wrote in the session folder
before each command's `done`, so the engine finds every artefact where a local run puts it.

Its life is ssh's stream: when stdin closes (Stop, a timeout, a closed window, a killed app, a
dropped connection: ssh without a terminal sends no hang-up) it ends the worker's whole process
tree and removes its folder. It also dies with its parent (Linux's parent-death signal), and
the worker's lifeline ties the worker to the agent.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import queue
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from tcprof.profiler.config.provenance import tcprof_version
from tcprof.profiler.protocol.events import PROTOCOL_VERSION
from tcprof.profiler.protocol.wire import encode
from tcprof.profiler.remote import frames
from tcprof.profiler.remote.ssh import torch_version

if TYPE_CHECKING:
    from tcprof.profiler.process.handle import Inbox, WorkerHandle

STOP_GRACE_S = 0.5
# The run's compile caches outlive one agent (later rounds start warm from them): a folder of
# this name beside the agent's, removed at the run's end by `--remove-cache NAME`.
CACHE_NAME = re.compile(r"tcprof-cache-[A-Za-z0-9_]+")
REAP_WAIT_S = 5.0  # after its channel closed, for the worker to end by itself
PR_SET_PDEATHSIG = 1


class Agent:
    def __init__(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self._in = stdin
        self.out = frames.FrameWriter(stdout)
        self.folder = Path(os.path.realpath(tempfile.mkdtemp(prefix="tcprof-remote-")))
        self._roots = {
            name: self.folder / name for name in ("model", "weights", "session", "cache", "cwd")
        }
        self._receiver = frames.FileReceiver({k: str(v) for k, v in self._roots.items()})
        self._inbox: Inbox = queue.Queue()
        self._worker: WorkerHandle | None = None
        self._sent: dict[str, tuple[int, int]] = {}  # files sent back, as they were then
        self._named: set[Path] = set()  # files the commands named (a cache artefact)
        self._done = threading.Event()
        self._nproc = 0  # the arm's ranks here (torchrun), 0 for one process
        self._threads: int | None = None  # each process's torch threads (_threads_here)

    # -- engine → agent -------------------------------------------------------------------------
    def serve(self) -> int:
        self.out.write_json(frames.HELLO, {**hello(), "folder": str(self.folder)})
        threading.Thread(target=self._relay_events, daemon=True, name="agent-events").start()
        threading.Thread(target=self._read_engine, daemon=True, name="agent-stdin").start()
        try:
            self._done.wait()  # stdin closed, or the worker ended and its end was sent
        finally:
            self._end()
        return 0

    def _read_engine(self) -> None:
        try:
            while (frame := frames.read_frame(self._in)) is not None:
                self._on_frame(*frame)
        finally:
            self._done.set()

    def _on_frame(self, kind: bytes, payload: bytes) -> None:
        if self._receiver.on_frame(kind, payload):
            return
        if kind == frames.START:
            self._start(json.loads(payload))
        elif kind == frames.COMMAND and self._worker is not None:
            self._worker.send(self._command(json.loads(self._here(payload))))
        elif kind == frames.STACKS and self._worker is not None:
            self._worker.dump_stacks()
        elif kind == frames.CPU and self._worker is not None:
            from tcprof.profiler.process.stall_watch import process_tree_cpu_s

            self.out.write_json(frames.INFO, {"cpu": process_tree_cpu_s(self._worker.pid)})

    def _here(self, payload: bytes) -> bytes:
        return here(payload, self._roots)

    def _there(self, data: bytes) -> bytes:
        return there(data, self._roots)

    def _start(self, spec: dict[str, Any]) -> None:
        """The worker, in the model's folder (where a local worker would be: its own folder)."""
        cache = spec.get("cache")
        if isinstance(cache, str) and CACHE_NAME.fullmatch(cache):
            self._roots["cache"] = shared_cache(cache)
            self._receiver = frames.FileReceiver({k: str(v) for k, v in self._roots.items()})
        model = self.folder / "model"
        model.mkdir(exist_ok=True)
        (self.folder / "cwd").mkdir(exist_ok=True)  # a script's working directory, if another
        os.chdir(model)
        env = {
            str(k): here(str(v).encode(), self._roots).decode()
            for k, v in (spec.get("env") or {}).items()
        }
        self._nproc = spec.get("nproc") or 0
        if isinstance(spec.get("threads"), int):
            self._threads = spec["threads"]  # the engine's: the run's --threads
        if self._nproc:
            from tcprof.profiler.distributed.torchrun_worker import DistributedWorker

            self._worker = DistributedWorker(0, self._inbox, self._nproc, self._threads_here(), env)
        else:
            from tcprof.profiler.process.local import WorkerProcess

            self._worker = WorkerProcess(0, self._inbox, env)
        self.out.write_json(frames.INFO, {"started": self._worker.pid})

    def _threads_here(self) -> int:
        """Each process's torch threads: the engine's, else this host's cores (shared by the
        arm's ranks, as the engine shares its own)."""
        if self._threads is None:
            from tcprof.profiler.config import threads_per_process

            self._threads = threads_per_process(local_threads(), self._nproc or 1)
        return self._threads

    def _command(self, command: dict[str, Any]) -> dict[str, Any]:
        """The engine's pids mean nothing here; the threads default is this host's cores."""
        command.pop("peers", None)
        if command.get("cmd") == "load" and command.get("threads") is None:
            command["threads"] = self._threads_here()
        path = command.get("path")
        if isinstance(path, str) and os.path.isabs(path):
            self._named.add(Path(path))
        return command

    # -- agent → engine -------------------------------------------------------------------------
    def _relay_events(self) -> None:
        while True:
            _, event = self._inbox.get()
            kind = event.get("type")
            if kind == "_eof":
                self._send_back()
                self.out.write_json(frames.INFO, self._exit_info())
                self._done.set()
                self.out.close()  # the engine reads the end of the channel: the worker's end
                return
            if kind == "done":
                self._send_back()  # the command's files are there before it is answered
            self.out.write(frames.EVENT, self._there(encode(event)))

    def _exit_info(self) -> dict[str, Any]:
        """How the worker ended, once reaped (its whole group ended as a local one's is)."""
        worker = self._worker
        if worker is None:
            return {"exit": None}
        worker.wait(REAP_WAIT_S)
        worker.stop(grace_s=STOP_GRACE_S)
        first = getattr(worker, "first_to_end", None)
        return {
            "exit": worker.classify_exit(),
            "first_to_end": first() if callable(first) else None,
        }

    def _send_back(self) -> None:
        session = self.folder / "session"
        changed = [
            (f"session/{rel}", session / rel)
            for rel, stamp in frames.relative_files(session).items()
            if self._sent.get(f"session/{rel}") != stamp
        ]
        for path in list(self._named):
            rel = self._there(str(path).encode()).decode()
            if path.is_file() and not path.is_relative_to(session) and rel != str(path):
                changed.append((rel[len(frames.PLACEHOLDER) + 1 :], path))
        for rel, path in changed:
            try:
                st = path.stat()
            except OSError:
                continue
            if self._sent.get(rel) != (st.st_size, st.st_mtime_ns):
                self.out.send_file(rel, path)
                self._sent[rel] = (st.st_size, st.st_mtime_ns)

    def _end(self) -> None:
        """stdin closed, the worker ended or SIGTERM came: the tree goes, and the folder."""
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one cannot cut this short
        if self._worker is not None:
            self._worker.stop(grace_s=STOP_GRACE_S)
        os.chdir("/")
        shutil.rmtree(self.folder, ignore_errors=True)


_PLACED = re.compile(re.escape(frames.PLACEHOLDER.encode()) + rb"/(\w+)")


def here(data: bytes, roots: dict[str, Path]) -> bytes:
    """Placeholder paths made this host's: each root's folder."""

    def folder(m: re.Match[bytes]) -> bytes:
        root = roots.get(m.group(1).decode())
        return m.group(0) if root is None else str(root).encode()

    return _PLACED.sub(folder, data)


def there(data: bytes, roots: dict[str, Path]) -> bytes:
    """This host's paths as placeholders (the engine puts its own folders in their place)."""
    for name, folder in sorted(roots.items(), key=lambda item: -len(str(item[1]))):
        data = re.sub(
            re.escape(str(folder).encode()) + rb"(?=[/\"\\]|$)",
            f"{frames.PLACEHOLDER}/{name}".encode(),
            data,
        )
    return data


def shared_cache(name: str) -> Path:
    folder = Path(os.path.realpath(tempfile.gettempdir())) / name
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def remove_cache(name: str) -> int:
    """`--remove-cache NAME`: the run's compile caches here, at its end."""
    if not CACHE_NAME.fullmatch(name):
        print(f"not a tcprof cache folder: {name!r}", file=sys.stderr)
        return 2
    shutil.rmtree(Path(tempfile.gettempdir()) / name, ignore_errors=True)
    return 0


def hello() -> dict[str, Any]:
    return {
        "protocol": PROTOCOL_VERSION,
        "tcprof": tcprof_version(),
        "torch": torch_version(),
        "python": sys.executable,
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "pid": os.getpid(),
    }


def local_threads() -> int:
    """The run's threads on this host (arms take turns: one process computes at a time)."""
    from tcprof.profiler.config import resolve_threads

    return resolve_threads(1)


def die_with_parent() -> None:
    """ssh's session process goes: so does the agent, by SIGTERM, so that it still ends its
    tree and removes its folder (the worker's lifeline ends the worker in any case)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        except (OSError, AttributeError):
            pass


def _terminated(*_: Any) -> None:
    raise SystemExit(143)


def main() -> int:
    if sys.argv[1:2] == ["--remove-cache"] and len(sys.argv) == 3:
        return remove_cache(sys.argv[2])
    die_with_parent()
    signal.signal(signal.SIGTERM, _terminated)  # the tree and the folder go on the way out
    stdout = os.fdopen(os.dup(1), "wb")  # frames only: anything printed goes to stderr
    os.dup2(2, 1)
    try:
        code = Agent(sys.stdin.buffer, stdout).serve()
    except SystemExit as stop:  # SIGTERM, after the tree and the folder went
        code = int(stop.code or 0)
    sys.stderr.flush()
    os._exit(code)  # not sys.exit: the stdin reader may still hold stdin's lock


if __name__ == "__main__":
    sys.exit(main())
