"""Blocking engine calls (inspect_model, probe_environment) run off the GUI thread.

Each call starts a short-lived worker that imports torch (1-3 s), so the window must never wait
for one. A plain Python thread does the call and hands the result back through a queued signal;
the callback then runs on the GUI thread, the only thread allowed to touch widgets. The owner
calls `shutdown()` when it closes, which waits for calls in flight, so no worker process
outlives the window.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

Callback = Callable[[Any], None]


@dataclass(frozen=True)
class Failure:
    """A background call that raised, as its callback is told (`failure_of` reads it)."""

    kind: str
    message: str
    traceback: str = ""

    def as_problem(self, kind: str) -> dict[str, str]:
        """The problem the window's error banner shows (its `kind` says what failed)."""
        problem = {"kind": kind, "message": self.message}
        return {**problem, "traceback": self.traceback} if self.traceback else problem


def failure_of(result: object) -> Failure | None:
    """The failure a result reports (`submit`'s shape for an exception, or a call's own
    {"error": ...}), or None when it is an answer: the one place that shape is read."""
    error = result.get("error") if isinstance(result, Mapping) else None
    if not isinstance(error, Mapping):
        return None
    return Failure(
        str(error.get("kind") or "internal"),
        str(error.get("message") or ""),
        str(error.get("traceback") or ""),
    )


class _Relay(QObject):
    """Lives on the GUI thread; its signal, emitted from a worker thread, is queued to it."""

    done = Signal(object, object)


class BackgroundCalls(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._relay = _Relay(self)
        self._relay.done.connect(self._deliver)
        self._threads: list[threading.Thread] = []
        self._closed = False

    def submit(self, fn: Callable[..., Any], callback: Callback, *args: Any) -> None:
        """Run fn(*args) on a thread; callback(result) later on the GUI thread.

        An exception becomes {"error": {"kind": "internal", "message", "traceback"}} so a
        callback only has one shape to handle."""
        relay = self._relay

        def work() -> None:
            try:
                result = fn(*args)
            except Exception as exc:  # shown to the user, never raised into Qt
                result = {
                    "error": {
                        "kind": "internal",
                        "message": f"{type(exc).__name__}: {exc}",
                        "traceback": traceback.format_exc(),
                    }
                }
            if not self._closed:
                relay.done.emit(callback, result)

        self._threads = [t for t in self._threads if t.is_alive()]
        thread = threading.Thread(target=work, name="tcprof-background", daemon=True)
        self._threads.append(thread)
        thread.start()

    def busy(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def _deliver(self, callback: Callback, result: Any) -> None:
        if not self._closed:
            callback(result)

    def shutdown(self, timeout_s: float = 30.0) -> None:
        """Stop delivering results and wait for calls in flight (their workers end with them)."""
        self._closed = True
        for thread in self._threads:
            thread.join(timeout_s)
        self._threads = []
