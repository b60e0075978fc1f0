"""Worker process entry point: `python -m tcprof.profiler.worker`.

Reads one JSON command per line on a private pipe (fd TCPROF_COMMAND_FD; stdin when run by
hand) and writes events on the original stdout (user prints go to stderr). Runs everything in
the main thread: torch.compile is not thread-safe. The commands and what answers them are in
commands.py. Before anything else the worker ties its life to the engine's (lifeline.py) and
turns faulthandler on, so a segfault's Python stack reaches the engine on stderr.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
from typing import IO

from tcprof.profiler.worker import lifeline

COMMAND_FD_ENV = "TCPROF_COMMAND_FD"  # set by profiler/process/local.py


def command_stream() -> IO[str]:
    """The engine's commands: the private pipe, not inherited by the model's own children."""
    fd = os.environ.get(COMMAND_FD_ENV)
    if not fd:
        return sys.stdin
    os.set_inheritable(int(fd), False)
    return os.fdopen(int(fd), "r", encoding="utf-8")


def main() -> int:
    from tcprof.profiler.worker import distributed

    if distributed.is_rank():  # ends as quickly: its launcher waits on it (docs/benchmarks.md)
        lifeline.quick_exit(rank_main())
    lifeline.hold()
    faulthandler.enable()  # to sys.stderr: fd 2, which the engine reads
    if hasattr(signal, "SIGUSR1"):  # the engine asks for the stacks of a stalled worker
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    from tcprof.profiler.protocol.events import PROTOCOL_VERSION
    from tcprof.profiler.worker.channel import EventChannel

    channel = EventChannel.take_stdout()
    channel.emit("ready", protocol=PROTOCOL_VERSION)  # before torch is imported: ~1.5 s
    from tcprof.profiler.worker.arm_worker import ArmWorker  # imports torch
    from tcprof.profiler.worker.commands import serve

    lifeline.quick_exit(serve(ArmWorker(channel), channel, command_stream()))


def rank_main() -> int:
    """A rank of a distributed arm (started by torchrun): it dies with torchrun, which dies
    with the engine, and talks to the engine over its own connection (distributed.py)."""
    lifeline.hold(parent_pid=os.getppid())
    faulthandler.enable()
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    from tcprof.profiler.protocol.events import PROTOCOL_VERSION
    from tcprof.profiler.worker import distributed

    sys.stdout.flush()
    os.dup2(2, 1)  # the model's prints go to stderr, as in a single worker
    channel, commands = distributed.connect()
    channel.emit("ready", protocol=PROTOCOL_VERSION)
    from tcprof.profiler.worker.arm_worker import ArmWorker  # imports torch
    from tcprof.profiler.worker.commands import serve

    try:
        return serve(ArmWorker(channel), channel, commands)  # type: ignore[arg-type]
    finally:
        distributed.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
