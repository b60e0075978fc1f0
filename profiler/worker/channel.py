"""The worker's event channel: the original stdout fd, kept for events only.

User code and C extensions print; so at start-up fd 1 is pointed at stderr and the engine reads
user output from there as log lines. Step samples are batched and flushed at most every
FLUSH_INTERVAL_S so that writing events costs the timed loop nothing measurable.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any

from tcprof.profiler.protocol.wire import encode

FLUSH_INTERVAL_S = 0.05


class EventChannel:
    def __init__(self, fd: int) -> None:
        self._fd = fd

    @classmethod
    def take_stdout(cls) -> EventChannel:
        """Duplicate the original stdout for events and send fd 1 (and sys.stdout) to stderr."""
        sys.stdout.flush()
        event_fd = os.dup(1)
        os.dup2(2, 1)
        if isinstance(sys.stdout, io.TextIOWrapper):  # as Python starts it
            sys.stdout.reconfigure(line_buffering=True)
        return cls(event_fd)

    def emit(self, type_: str, **fields: Any) -> None:
        data = encode({"type": type_, **fields})
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
