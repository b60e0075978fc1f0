"""An arm's worker on a remote host, behind the WorkerHandle protocol: ssh and the agent.

The handle's process is the local ssh client (in its own session). Once the agent says hello
with a matching protocol and a torch, the model's files go over and the agent starts the worker
(or torchrun); commands sent before that wait here. Commands travel with their paths rewritten
(transfer.py) and the files they name uploaded first; events come back with their paths made
local, and the files the worker wrote arrive before the `done` they belong to.

Stop closes ssh's stdin, which ends the agent and its whole tree over there (agent.py), then
ends ssh. A failure to connect, a refused key, a missing tcprof or torch, or a connection that
drops is explained in one line naming the host (`end_reason`), with what was measured kept, as
for a crashed local worker.
"""

from __future__ import annotations

import collections
import json
import os
import shlex
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from tcprof.profiler.config import RunConfig, ScriptSource
from tcprof.profiler.config.provenance import tcprof_version
from tcprof.profiler.process.handle import Inbox, OwnProcess, classify_exit
from tcprof.profiler.process.local import (
    OUTPUT_TAIL_LINES,
    READER_JOIN_S,
    SPAWNER,
    TERMINATE_GRACE_S,
    bounded_lines,
)
from tcprof.profiler.protocol.events import PROTOCOL_VERSION
from tcprof.profiler.remote import frames, ssh
from tcprof.profiler.remote.transfer import PathMap, TooManyFiles, script_roots, sent_files

CLEANUP_TIMEOUT_S = ssh.CONNECT_TIMEOUT_S + 5.0
AGENT_END_WAIT_S = 5.0  # after stdin closed, for the agent to end its tree and say goodbye


class RemoteWorker(OwnProcess):
    """A `WorkerHandle` backed by `ssh HOST python -m tcprof.profiler.remote.agent`."""

    def __init__(
        self,
        index: int,
        inbox: Inbox,
        host: str,
        remote_python: str,
        paths: PathMap,
        model_path: str,
        nproc: int = 0,
        extra_env: dict[str, str] | None = None,
        threads: int | None = None,
        script: ScriptSource | None = None,
    ) -> None:
        """nproc: the ranks of a distributed arm (torchrun there), 0 for one process. threads:
        each process's torch threads (None: the host's cores, resolved there by the agent).
        script: a script run's (its working directory's files and the files its arguments
        name travel too)."""
        self.index = index
        self._inbox = inbox
        self.host = host
        self.remote_python = remote_python
        self._paths = paths
        self._model_path = model_path
        self._script = script
        self._start_spec = {
            "nproc": nproc,
            "threads": threads,
            "env": paths.to_remote(dict(extra_env or {})),
            "cache": Path(paths.roots["cache"]).name if "cache" in paths.roots else None,
        }
        self.stopped_by_us = False
        self.hello: dict[str, Any] | None = None
        self.remote_pids: list[int] = []  # the agent's and its worker's, on the remote host
        self._problem: str | None = None  # why the remote side cannot run (said once)
        self._exit: dict[str, Any] | None = None  # how the remote worker ended, as it said
        self._cpu_s: float | None = None
        self._lock = threading.Lock()
        self._started = False
        self._waiting: list[dict[str, Any]] = []  # commands sent before the worker started
        self._uploaded: dict[Path, tuple[int, int]] = {}
        self._ssh_lines: collections.deque[str] = collections.deque(maxlen=OUTPUT_TAIL_LINES)
        self._output_tail: collections.deque[str] = collections.deque(maxlen=OUTPUT_TAIL_LINES)
        self._receiver = frames.FileReceiver(paths.roots)
        self.proc = SPAWNER.popen(
            ssh.ssh_argv(host, ssh.agent_command(remote_python)),
            close_after=None,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.pid = self.proc.pid
        assert self.proc.stdin is not None  # stdin=PIPE
        self._out = frames.FrameWriter(self.proc.stdin)
        self._threads = [
            self._thread(self._read_frames, self.proc.stdout, "frames"),
            self._thread(self._read_ssh, self.proc.stderr, "ssh"),
        ]

    def _thread(
        self, target: Callable[[IO[bytes]], None], stream: IO[bytes] | None, name: str
    ) -> threading.Thread:
        t = threading.Thread(target=target, args=(stream,), daemon=True, name=f"remote-{name}")
        t.start()
        return t

    def _put(self, event: dict[str, Any]) -> None:
        self._inbox.put((self.index, event))

    # -- agent → engine -------------------------------------------------------------------------
    def _read_frames(self, stream: IO[bytes]) -> None:
        try:
            self._problem = self._problem or self._not_the_agent(stream)
            while self._problem is None and (frame := frames.read_frame(stream)) is not None:
                self._on_frame(*frame)
        except (ValueError, OSError) as exc:  # a broken stream: the end of the channel
            self._problem = self._problem or f"a broken stream from {self.host}: {exc}"
            self._out.close()
        finally:
            _drain(stream)  # after a problem: the rest, unread, so that ssh can end
            self._put({"type": "_eof"})

    def _not_the_agent(self, stream: IO[bytes]) -> str | None:
        """What came instead of the agent's hello: a shell startup file that prints breaks the
        channel (as it breaks scp), so it is named rather than read as frames."""
        peek = getattr(stream, "peek", None)
        first = peek(1)[:1] if callable(peek) else frames.HELLO
        if not first or first == frames.HELLO:
            return None
        said = stream.read1(200).decode(errors="replace").strip().splitlines()  # type: ignore[attr-defined]
        self._out.close()
        return (
            f"{self.host} printed {said[0][:80]!r} before tcprof's agent started: make the "
            "remote shell's startup files quiet when not interactive"
        )

    def _on_frame(self, kind: bytes, payload: bytes) -> None:
        if self._receiver.on_frame(kind, payload):
            return
        if kind == frames.EVENT:
            event = self._paths.to_local(json.loads(payload))
            if event.get("type") == "log" and event.get("stream") == "output":
                self._output_tail.append(str(event.get("text", "")))
            self._put(event)
        elif kind == frames.HELLO:
            self._on_hello(json.loads(payload))
        elif kind == frames.INFO:
            self._on_info(json.loads(payload))

    def _on_hello(self, hello: dict[str, Any]) -> None:
        self.hello = hello
        self.remote_pids.append(int(hello.get("pid") or 0))
        self._problem = hello_problem(hello, self.host, self.remote_python)
        if self._problem is not None:
            self._out.close()  # the agent ends; the channel's end is this arm's error
            return
        if hello.get("tcprof") != tcprof_version():
            self._put(
                {
                    "type": "log",
                    "stream": "tcprof",
                    "text": f"{self.host} runs tcprof {hello.get('tcprof')}, this is "
                    f"{tcprof_version()} (the same protocol, {PROTOCOL_VERSION})",
                }
            )
        try:
            files = sent_files(self._model_path, self._script, self._paths)
        except (TooManyFiles, OSError) as exc:
            self._problem = str(exc)
            self._out.close()
            return
        with self._lock:
            for name, path in files:
                self._out.send_file(name, path)
            self._out.write_json(frames.START, self._start_spec)
            self._started = True
            waiting, self._waiting = self._waiting, []
            for command in waiting:
                self._send_locked(command)

    def _on_info(self, info: dict[str, Any]) -> None:
        if "started" in info:
            self.remote_pids.append(int(info["started"] or 0))
        if "cpu" in info:
            self._cpu_s = info["cpu"]
        if "exit" in info:
            self._exit = info

    def _read_ssh(self, stream: IO[bytes]) -> None:
        """ssh's own messages and the agent's: the last words of a failed connection."""
        for text in bounded_lines(stream):
            self._ssh_lines.append(text)
            self._output_tail.append(text)
            self._put({"type": "log", "stream": "output", "text": text})

    # -- engine → agent -------------------------------------------------------------------------
    def send(self, command: dict[str, Any]) -> bool:
        with self._lock:
            if not self._started:
                self._waiting.append(command)
                return self.proc.poll() is None
            return self._send_locked(command)

    def _send_locked(self, command: dict[str, Any]) -> bool:
        """The files the command names go first (the weights, a cache artefact)."""
        for rel, path in self._paths.local_files(command):
            st = path.stat()
            if self._uploaded.get(path) != (st.st_size, st.st_mtime_ns):
                self._out.send_file(rel, path)
                self._uploaded[path] = (st.st_size, st.st_mtime_ns)
        return self._out.write_json(frames.COMMAND, self._paths.to_remote(command))

    def cpu_time(self, pid: int) -> float | None:
        """The remote worker's CPU seconds as last reported; asks for a fresh figure (so the
        stall timeout counts a long remote compile as progress). pid: the handle's own."""
        if self._started:
            self._out.write(frames.CPU)
        return self._cpu_s

    def dump_stacks(self) -> None:
        if self._started:
            self._out.write(frames.STACKS)

    # -- the process ----------------------------------------------------------------------------
    def stop(self, grace_s: float = TERMINATE_GRACE_S) -> None:
        """Close the agent's stdin (it ends everything it started there), then end ssh."""
        if self.proc.poll() is None:
            self.stopped_by_us = True
        self._out.close()
        self.end_group(grace_s, head_start_s=grace_s + AGENT_END_WAIT_S)
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(timeout=READER_JOIN_S)

    def output_tail(self) -> list[str]:
        return list(self._output_tail)

    def classify_exit(self) -> dict[str, Any]:
        if self._exit is not None and self._exit.get("exit"):
            return self._exit["exit"]
        code = self.proc.poll()
        if code is not None and code > 0 and self.stopped_by_us:
            return {"status": "stopped", "code": code}
        return classify_exit(code, self.stopped_by_us)

    def first_to_end(self) -> str | None:
        """A distributed arm's rank that ended first, as the remote launcher saw it."""
        return (self._exit or {}).get("first_to_end")

    def end_reason(self, where: str | None) -> str | None:
        """The whole one-line reason when the remote side, not the worker, failed: a host that
        cannot be reached or refuses the key, a missing tcprof or torch, a dropped connection.
        None when the worker itself ended (its end is explained like a local one's)."""
        if self._problem is not None:
            return self._problem
        if self._exit is not None:
            return None
        code = self.proc.poll()
        lines = list(self._ssh_lines)
        if self.hello is None:
            return ssh.connect_failure(self.host, self.remote_python, code, lines)
        return ssh.lost_connection(self.host, where, code, lines)


def _drain(stream: IO[bytes]) -> None:
    try:
        while stream.read(frames.CHUNK):
            pass
    except (OSError, ValueError):
        pass


def hello_problem(hello: dict[str, Any], host: str, python: str) -> str | None:
    """Why the agent's side cannot run this engine's worker (another protocol, no torch)."""
    if hello.get("protocol") != PROTOCOL_VERSION:
        return (
            f"{host} runs tcprof {hello.get('tcprof')} (protocol {hello.get('protocol')}), "
            f"this is tcprof {tcprof_version()} (protocol {PROTOCOL_VERSION}): "
            f"{ssh.install_hint()} for {python} there"
        )
    if not hello.get("torch"):
        return f"torch is not installed for {python} on {host}: {ssh.install_hint()}"
    return None


def remove_remote_cache(config: RunConfig, name: str) -> None:
    """The run's compile caches on its host (kept there across its rounds) go at its end."""
    assert config.host
    command = f"{ssh.agent_command(config.remote_python)} --remove-cache {shlex.quote(name)}"
    try:
        subprocess.run(
            ssh.ssh_argv(config.host, command),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=CLEANUP_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError):
        pass  # the host is gone: its temporary folder is its own to clean


def start_remote_worker(
    config: RunConfig,
    index: int,
    inbox: Inbox,
    env: dict[str, str],
    nproc: int,
    cache_root: str | None,
    threads: int | None = None,
) -> RemoteWorker:
    """The runner's factory for `--host`: the run's folders as the remote worker will see them."""
    assert config.host
    roots = {
        "model": os.path.dirname(os.path.abspath(config.source.path)),
        "weights": os.path.dirname(os.path.abspath(config.weights)) if config.weights else None,
        "session": config.artifacts_dir,
        "cache": cache_root,
    }
    if config.script is not None:
        roots.update(script_roots(config.script))
    paths = PathMap(roots)
    return RemoteWorker(
        index,
        inbox,
        config.host,
        config.remote_python,
        paths,
        config.source.path,
        nproc=nproc,
        extra_env=env,
        threads=threads,
        script=config.script,
    )
