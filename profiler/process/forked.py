"""Workers forked from a fork server (profiler/worker/zygote.py) instead of started fresh.

A fresh worker spends about 2.6 s of CPU importing torch before its first command; forked from
a process that has imported it, a worker is ready in milliseconds. One fork server per engine
process is started on first use and lives as long as the engine.

Which workers are forked (TCPROF_FORK_WORKERS): by default ("untimed") only those whose steps
no figure is read from: model inspection, the environment probe, the untimed accuracy pass.
A timed arm is always a fresh interpreter, because a forked one does not measure the same: in
one run whose eager arm was forked and whose A/A twin was fresh, the twin read 1.39x
[1.18-1.64] faster (and 0.62x [0.51-0.75] the other way round), while aot_eager's twins read
1.00 and 1.09, and all-forked twins 0.96 (docs/benchmarks.md, bench/fork_server.py --aa).
"all" forks timed arms too, for a test suite that checks behaviour, not speed; "0" forks
nothing. A worker is forked only when a fresh one would start in the same state: on Linux, with
the environment the fork server was started with (torch reads some variables at import:
TORCH_TRACE, TORCH_COMPILE_DEBUG, TORCH_LOGS and friends). Otherwise, or when the fork server
cannot be started, the worker is spawned fresh.

`ForkedChild` stands in for the `subprocess.Popen` of a spawned worker: the same `pid`,
`stdout`, `stderr`, `poll` and `wait`, its exit code relayed by the fork server (its parent).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from typing import IO, Any

FORK_ENV = "TCPROF_FORK_WORKERS"  # "untimed" (the default), "all" or "0"
FORK_MODES = ("untimed", "all", "0")
SOCKET_FD_ENV = "TCPROF_ZYGOTE_FD"  # read by profiler/worker/zygote.py
START_TIMEOUT_S = 120.0  # importing torch on a loaded machine
REPLY_TIMEOUT_S = 30.0
MAX_MESSAGE = 1 << 16
# Never a reason not to fork: set per worker (profiler/process/local.py, worker/lifeline.py),
# read by tcprof only when called (TCPROF_HOME: profiler/folders/home.py; FORK_ENV: here), or
# changed by a test runner between tests; none is read by what the fork server imports.
PER_WORKER = (
    "TCPROF_COMMAND_FD",
    "TCPROF_PARENT_PID",
    "TCPROF_HOME",
    "TCPROF_FORK_WORKERS",
    "PYTEST_CURRENT_TEST",
)


def may_fork(timed: bool) -> bool:
    """Whether a worker may be forked: never off Linux; a timed one only under "all"."""
    if not sys.platform.startswith("linux"):
        return False
    mode = os.environ.get(FORK_ENV) or "untimed"
    if mode not in FORK_MODES:
        mode = "untimed"
    return mode == "all" or (mode == "untimed" and not timed)


class ForkServer:
    """The engine's end of one fork server: fork requests, and the exit codes it relays."""

    def __init__(self, command: list[str], env: dict[str, str], popen: Any) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.env = {k: v for k, v in env.items() if k not in PER_WORKER}
        env = {**env, SOCKET_FD_ENV: str(theirs.fileno())}
        self._sock = ours
        self._lock = threading.Lock()  # one fork request at a time: replies come in order
        self._changed = threading.Condition()
        self._replies: list[dict[str, Any]] = []
        self._codes: dict[int, int] = {}
        self._children: set[int] = set()
        self._open = True
        self._ready = False
        try:
            self.proc = popen(
                command,
                close_after=None,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
                env=env,
            )
        finally:
            theirs.close()
        threading.Thread(target=self._read, daemon=True, name="tcprof-fork-server").start()

    def wait_ready(self, timeout: float) -> bool:
        """Whether it has imported torch and takes requests, waiting up to `timeout` s; a
        server not ready after START_TIMEOUT_S is given up (workers are spawned fresh)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self._ready and self._open:
                left = deadline - time.monotonic()
                if left <= 0:
                    if timeout >= START_TIMEOUT_S:
                        self._open = False
                    break
                self._changed.wait(left)
            return self._ready and self._open

    def serves(self, env: dict[str, str]) -> bool:
        """Whether a worker with this environment would start forked as it would fresh."""
        return self._open and {k: v for k, v in env.items() if k not in PER_WORKER} == self.env

    def fork(self, env: dict[str, str], cwd: str) -> ForkedChild:
        """A worker forked with this environment and working folder (raises OSError)."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        cmd_r, cmd_w = os.pipe()
        try:
            with self._lock:
                if not self.wait_ready(START_TIMEOUT_S):
                    raise OSError("the worker fork server did not start")
                request = json.dumps({"env": env, "cwd": cwd}).encode()
                socket.send_fds(self._sock, [request], [out_w, err_w, cmd_r])
                reply = self._reply(REPLY_TIMEOUT_S)
        except BaseException:
            for fd in (out_r, err_r, cmd_w):
                os.close(fd)
            raise
        finally:
            for fd in (out_w, err_w, cmd_r):
                os.close(fd)
        if not reply or "forked" not in reply:
            for fd in (out_r, err_r, cmd_w):
                os.close(fd)
            raise OSError(str((reply or {}).get("failed") or "the worker fork server is gone"))
        pid = int(reply["forked"])
        with self._changed:
            self._children.add(pid)
        return ForkedChild(self, pid, os.fdopen(out_r, "rb"), os.fdopen(err_r, "rb"), cmd_w)

    def exit_code(self, pid: int) -> int | None:
        with self._changed:
            return self._codes.get(pid)

    def wait_for(self, pid: int, timeout: float | None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while pid not in self._codes:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                self._changed.wait(left)
            return self._codes[pid]

    def idle(self) -> bool:
        """Whether none of its workers is alive (closing it would take none along)."""
        with self._changed:
            return self._children <= set(self._codes)

    def end(self) -> None:
        """Close it and end its process now (only when idle: its workers would die with it)."""
        self.close()
        try:
            self.proc.kill()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass

    def close(self) -> None:
        self._open = False
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _reply(self, timeout: float) -> dict[str, Any] | None:
        """The answer to the request just sent (None: none came in time, or the server is
        gone)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self._replies:
                if not self._open:
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._changed.wait(left)
            return self._replies.pop(0)

    def _read(self) -> None:
        while True:
            try:
                data = self._sock.recv(MAX_MESSAGE)
            except OSError:
                data = b""
            if not data:
                break
            message = json.loads(data)
            with self._changed:
                if "exited" in message:
                    self._codes[int(message["exited"])] = int(message["code"])
                elif "ready" in message:
                    self._ready = True
                else:
                    self._replies.append(message)
                self._changed.notify_all()
        with self._changed:  # its children died with it (PR_SET_PDEATHSIG): SIGKILL
            self._open = False
            for pid in self._children:
                self._codes.setdefault(pid, -9)
            self._changed.notify_all()


class ForkedChild:
    """The `subprocess.Popen` of a forked worker, as much of it as the engine uses."""

    def __init__(
        self, server: ForkServer, pid: int, stdout: IO[bytes], stderr: IO[bytes], commands: int
    ) -> None:
        self._server = server
        self.pid = pid
        self.stdout: IO[bytes] | None = stdout
        self.stderr: IO[bytes] | None = stderr
        self.commands_fd = commands
        self.args = ["<forked worker>", str(pid)]

    @property
    def returncode(self) -> int | None:
        return self._server.exit_code(self.pid)

    def poll(self) -> int | None:
        return self._server.exit_code(self.pid)

    def wait(self, timeout: float | None = None) -> int:
        code = self._server.wait_for(self.pid, timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return code


_SERVER: ForkServer | None = None
_SERVER_LOCK = threading.Lock()
_FAILED = False


def fork_server_pid() -> int | None:
    """The pid of this engine's fork server, if it runs (it outlives every run, by design)."""
    server = _SERVER
    return server.proc.pid if server is not None and server._open else None


def fork_server(command: list[str], env: dict[str, str], popen: Any) -> ForkServer | None:
    """This engine's fork server, started on first use with `env` (it imports torch in the
    background: `wait_ready`); None when it cannot start (workers are then spawned fresh).
    A server started with another environment (a variable set since) is replaced once none of
    its workers is alive; until then workers of the new environment start fresh."""
    global _SERVER, _FAILED
    with _SERVER_LOCK:
        if _SERVER is not None and not _SERVER.serves(env) and _SERVER.idle():
            _SERVER.end()
            _SERVER = None
        if _SERVER is None and not _FAILED:
            try:
                _SERVER = ForkServer(command, env, popen)
            except OSError:
                _FAILED = True
        return _SERVER
