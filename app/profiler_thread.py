"""ProfilerThread: the QThread that owns one run and relays its events to the GUI in batches.

The engine's `Runner.run()` blocks and calls its listeners on the calling thread, so it runs
here, off the GUI thread. Events are not sent one signal each: a burst of thousands of step
events per second would flood the GUI's event queue (and PySide6 6.12 even aborts under tens of
thousands of cross-thread signals carrying Python objects). Instead the listener appends to a
list under a lock and emits a payload-free `eventsReady` only when the list goes from empty to
non-empty; the GUI takes the whole list with `take_events()` at most ~30 times per second. The
number of cross-thread signals is thus bounded by the GUI's drain rate, whatever the event rate.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

from profiler.config import RunConfig
from profiler.runner import Runner
from profiler.session import Session

Event = dict[str, Any]
Listener = Callable[[Event], None]
RunnerFactory = Callable[[RunConfig, list[Listener]], Any]


class ProfilerThread(QThread):
    """Runs `runner_factory(config, listeners).run()`; Stop is `cancel()` from any thread."""

    eventsReady = Signal()

    def __init__(
        self,
        config: RunConfig,
        listeners: list[Listener] | None = None,
        runner_factory: RunnerFactory = Runner,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ProfilerThread")
        self.config = config
        self._lock = threading.Lock()
        self._pending: list[Event] = []
        self._signalled = False
        self.events_relayed = 0
        self.signals_emitted = 0
        # Listeners other than the relay (e.g. the events.jsonl writer) run here, off the GUI.
        self.runner = runner_factory(config, [*(listeners or []), self._relay])
        self.session: Session | None = None
        self.crash: Event | None = None

    def cancel(self) -> None:
        """Ask the run to end; the engine ends its workers within about a second."""
        self.runner.cancel()

    def run(self) -> None:  # the thread body
        try:
            self.session = self.runner.run()
        except BaseException as exc:  # never let an exception escape into Qt's thread code
            self.session = getattr(self.runner, "session", None)
            self.crash = {
                "type": "error",
                "kind": "internal",
                "message": f"the run failed inside the profiler: {type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(),
                "fatal": True,
            }
            self._relay(self.crash)

    def _relay(self, event: Event) -> None:
        with self._lock:
            self._pending.append(event)
            self.events_relayed += 1
            if self._signalled:
                return
            self._signalled = True
            self.signals_emitted += 1
        self.eventsReady.emit()

    def take_events(self) -> list[Event]:
        """Everything relayed since the last call (GUI thread); re-arms the next signal."""
        with self._lock:
            events, self._pending = self._pending, []
            self._signalled = False
        return events
