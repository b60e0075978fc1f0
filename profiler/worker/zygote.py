"""The worker fork server: torch imported once, each worker forked from it in milliseconds.

A fresh worker spends about 2.6 s of CPU importing torch and TorchDynamo (TorchDynamo comes in
with the first optimizer: torch.optim's constructors import it) before its first command. A run
starts one worker per arm per round, so on a small machine the imports were most of a short
run's CPU. This process pays them once: it imports what every worker imports before its first
command (the worker's own modules, torch, torch.optim and torch._dynamo), and nothing more, so
what a worker does afterwards, a compile above all, costs what it costs in a fresh interpreter:
inductor's code generation, the model file and everything else are imported by the worker
itself, inside the compile it is timed in. CUDA is never touched here (a forked child could not
initialise it), and no thread of ours runs at a fork.

The engine (profiler/process/forked.py) talks to it over a SEQPACKET socket: a `fork` request
carries the worker's environment and working folder and three file descriptors (its stdout, its
stderr, the read end of its command pipe); the answer is the child's pid, and every child's end
is reported with its exit code as Popen would give it (negative: the signal). A child leads its
own session, so the engine ends it and whatever it started with one killpg, as for a spawned
worker; it dies with this process (PR_SET_PDEATHSIG), and this process dies with the engine.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
from typing import Any

from tcprof.profiler.worker import lifeline

SOCKET_FD_ENV = "TCPROF_ZYGOTE_FD"  # set by profiler/process/forked.py
COMMAND_FD_ENV = "TCPROF_COMMAND_FD"  # the worker's, as profiler/worker/__main__.py reads it
MAX_MESSAGE = 1 << 20  # a request: an environment and a folder


def preload() -> None:
    """What a fresh worker has imported before its first command, and nothing more."""
    from tcprof.profiler.worker import arm_setup, arm_worker, commands  # noqa: F401

    arm_setup.import_dynamo()  # torch.optim's constructors import it at load


def main() -> int:
    lifeline._set_parent_death_signal()
    parent = int(os.environ.get(lifeline.PARENT_PID_ENV) or os.getppid())
    if os.getppid() != parent:
        return 1
    sock = socket.socket(fileno=int(os.environ[SOCKET_FD_ENV]))
    preload()
    import torch

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the select below
    _send(sock, {"ready": os.getpid()})
    while True:
        readable, _, _ = select.select([sock.fileno(), wake_r], [], [])
        if wake_r in readable:
            os.read(wake_r, 4096)
            _reap(sock)
        if sock.fileno() in readable:
            try:
                data, fds, _flags, _addr = socket.recv_fds(sock, MAX_MESSAGE, 3)
            except OSError:
                return 0
            if not data:
                return 0  # the engine closed its end: it is ending, and its workers with it
            request = json.loads(data)
            if torch.cuda.is_initialized() or len(fds) != 3:
                for fd in fds:
                    os.close(fd)
                _send(sock, {"failed": "the fork server cannot fork this worker"})
                continue
            pid = _fork(request, fds, sock, (wake_r, wake_w))
            for fd in fds:
                os.close(fd)
            _send(sock, {"forked": pid})
            _reap(sock)


def _fork(
    request: dict[str, Any], fds: list[int], sock: socket.socket, wake: tuple[int, int]
) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    # The engine is told the pid only once the child leads its own session (and so its own
    # process group): Stop signals the group, and a group not yet made would miss the child.
    led_r, led_w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(led_w)
        os.read(led_r, 1)  # a byte once setsid is done; end of file if the child died first
        os.close(led_r)
        return pid
    try:  # the child: a worker as `python -m tcprof.profiler.worker` would start
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        sock.close()
        for fd in wake:
            os.close(fd)
        os.close(led_r)
        os.setsid()
        os.write(led_w, b"1")
        os.close(led_w)
        stdout, stderr, commands = fds
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(stdout, 1)
        os.dup2(stderr, 2)
        for fd in (null, stdout, stderr):
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ[COMMAND_FD_ENV] = str(commands)
        os.environ[lifeline.PARENT_PID_ENV] = str(os.getppid())
        from tcprof.profiler.worker import __main__ as worker_main

        sys.argv = [worker_main.__file__]
        worker_main.main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    os._exit(code)


def _reap(sock: socket.socket) -> None:
    """Report every child that ended, with its exit code as Popen gives it."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send(sock, {"exited": pid, "code": os.waitstatus_to_exitcode(status)})


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    try:
        sock.send(json.dumps(message).encode())
    except OSError:
        pass  # the engine is gone; PR_SET_PDEATHSIG ends this process


if __name__ == "__main__":
    sys.exit(main())
