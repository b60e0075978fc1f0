"""A worker's log lines, bounded: the head and the tail of each stream, and how many were cut.

A model that prints without end must not grow the engine's memory, the session or events.jsonl.
Per stream, the first HEAD_LINES lines pass at once; later lines wait in a ring of the last
TAIL_LINES, and when the stream ends one `log` notice says how many lines were dropped between
the two, followed by the tail. Over-long texts are cut to MAX_TEXT_CHARS.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable

from tcprof.profiler.protocol.types import Event

HEAD_LINES = 2000
TAIL_LINES = 500
MAX_TEXT_CHARS = 100_000


class _Stream:
    def __init__(self, tail: int) -> None:
        self.passed = 0
        self.dropped = 0
        self.tail: collections.deque[Event] = collections.deque(maxlen=tail)


class LogLimiter:
    """Passes `log` events on to `emit`, at most head + tail per stream (thread-safe)."""

    def __init__(
        self, emit: Callable[[Event], None], head: int = HEAD_LINES, tail: int = TAIL_LINES
    ) -> None:
        self._emit = emit
        self._head = head
        self._tail = tail
        self._streams: dict[str, _Stream] = {}
        self._finished = False
        self._lock = threading.Lock()  # emit is called under it: the order of lines is kept

    def offer(self, event: Event) -> None:
        text = event.get("text")
        if isinstance(text, str) and len(text) > MAX_TEXT_CHARS:
            cut = len(text) - MAX_TEXT_CHARS
            event = {**event, "text": f"{text[:MAX_TEXT_CHARS]} … [{cut:,} more characters]"}
        with self._lock:
            if self._finished:
                return  # a line after the end (a leftover child's): nothing waits for it
            stream = self._streams.setdefault(str(event.get("stream")), _Stream(self._tail))
            if stream.passed < self._head:
                stream.passed += 1
                self._emit(event)
                return
            if len(stream.tail) == stream.tail.maxlen:
                stream.dropped += 1
            stream.tail.append(event)

    def finish(self) -> None:
        """The streams ended: the notice of what was dropped, then the tails. Idempotent."""
        with self._lock:
            if self._finished:
                return
            self._finished = True
            for name, stream in self._streams.items():
                if stream.dropped:
                    self._emit(
                        {
                            "type": "log",
                            "stream": name,
                            "text": f"[tcprof] {stream.dropped:,} lines dropped here (kept the "
                            f"first {self._head:,} and the last {self._tail:,})",
                            "dropped": stream.dropped,
                        }
                    )
                for event in stream.tail:
                    self._emit(event)
                stream.tail.clear()
