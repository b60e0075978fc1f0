"""Worker process entry point: `python -m profiler.worker`.

Reads one JSON command per line on stdin and writes events on the original stdout (user prints
go to stderr). Runs everything in the main thread: torch.compile is not thread-safe. The
commands and what answers them are in commands.py.
"""

from __future__ import annotations

import sys

from profiler.events import PROTOCOL_VERSION
from profiler.worker.channel import EventChannel


def main() -> int:
    channel = EventChannel.take_stdout()
    channel.emit("ready", protocol=PROTOCOL_VERSION)  # before torch is imported: ~1.5 s
    from profiler.worker.arm_worker import ArmWorker  # imports torch
    from profiler.worker.commands import serve

    return serve(ArmWorker(channel), channel, sys.stdin)


if __name__ == "__main__":
    sys.exit(main())
