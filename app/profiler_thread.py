"""ProfilerThread: the QThread that owns one run and relays its events to the GUI in batches.

The engine's `Runner.run()` blocks and calls its listeners on the calling thread, so it runs
here, off the GUI thread. Events are not sent one signal each: a burst of thousands of step
events per second would flood the GUI's event queue (and PySide6 6.12 even aborts under tens of
thousands of cross-thread signals carrying Python objects). Instead the listener appends to a
list under a lock and emits a payload-free `eventsReady` only when the list goes from empty to
non-empty; the GUI takes the whole list with `take_events()` at most ~30 times per second. The
number of cross-thread signals is thus bounded by the GUI's drain rate, whatever the event rate.

Locking, kept obviously deadlock-free: `_lock` is the only lock shared between the threads; it
guards `_pending` and `_signalled` and is held only for a few list operations. Nothing is called
while holding it: no signal is emitted, no Qt or listener code runs, no other lock is taken.
`take_events` swaps the list out under the lock, and the GUI processes it (LiveData, widgets)
after releasing it; LiveData itself is touched by the GUI thread alone and has no lock. The
signal carries no Python object, so a queued emit never needs the GUI thread's help. (The
session folder's `_folder_lock` is a file lock against other processes, not a thread lock.)

Work that grows with the run's length stays here too, off the GUI thread: the summary table's
numbers (`Session.to_dict()` bootstraps confidence intervals) are computed when a batch size
finishes and relayed as a `summary` event, and session.json / steps.csv are written here when
the run ends or is stopped.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

from profiler.config import RunConfig
from profiler.outputs import EventLog
from profiler.run_lock import RunLock
from profiler.runner import Runner
from profiler.session_files import open_event_log, save_session

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
        session_dir: Path | None = None,
        parent: QObject | None = None,
    ) -> None:
        """With session_dir, the folder is locked for the run's life (recovery leaves it
        alone), events.jsonl is written as events arrive (a failing write is one log line, and
        the run goes on) and session.json and steps.csv when the run ends."""
        super().__init__(parent)
        self.setObjectName("ProfilerThread")
        self.config = config
        self._lock = threading.Lock()
        self._pending: list[Event] = []
        self._signalled = False
        self.events_relayed = 0
        self.signals_emitted = 0
        self.session_dir = session_dir
        self._folder_lock: RunLock | None = self._take_folder_lock(session_dir)
        self._event_log: EventLog | None = (
            open_event_log(session_dir, on_failure=self._log_failed) if session_dir else None
        )
        own = [self._event_log] if self._event_log else []
        # Listeners run here, off the GUI thread; the relay comes last.
        self.runner = runner_factory(config, [*own, *(listeners or []), self._relay])
        self.session: Any = None
        self.summary: dict[str, Any] | None = None
        self.save_error: str | None = None
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
        finally:
            if self._event_log is not None:
                self._event_log.close()
        try:
            self._save()
        finally:
            if self._folder_lock is not None:
                self._folder_lock.release()

    @staticmethod
    def _take_folder_lock(session_dir: Path | None) -> RunLock | None:
        if session_dir is None:
            return None
        try:
            return RunLock(session_dir)
        except OSError:  # a fresh folder of this run: only a broken file system refuses
            return None

    def _log_failed(self, event: Event) -> None:
        """events.jsonl could not be written: the session (in memory) and the window are told
        once; the run goes on."""
        session = getattr(self.runner, "session", None)
        if session is not None:
            session.apply(event)
        self._relay(event)

    def _summarize(self) -> dict[str, Any] | None:
        session = getattr(self.runner, "session", None)
        try:
            return session.to_dict(include_samples=False) if session is not None else None
        except Exception:
            return None

    def _save(self) -> None:
        session = (
            self.session if self.session is not None else getattr(self.runner, "session", None)
        )
        self.summary = self._summarize()
        if self.session_dir is None or session is None:
            return
        try:
            saved, problem = save_session(session.to_dict(), self.session_dir)
        except Exception as exc:  # nothing may take the window down
            saved, problem = None, f"could not save the session in {self.session_dir}: {exc}"
        if saved is not None:
            self.session_dir = saved
        self.save_error = problem

    def _relay(self, event: Event) -> None:
        if event.get("type") == "bs_done":
            summary = self._summarize()  # the runner's session already holds this event
            events = [event, {"type": "summary", "session": summary}] if summary else [event]
        else:
            events = [event]
        with self._lock:  # no call out of this block: see the module docstring
            self._pending.extend(events)
            self.events_relayed += 1
            must_signal = not self._signalled
            self._signalled = True
        if must_signal:
            self.signals_emitted += 1  # only this thread writes it
            self.eventsReady.emit()  # outside the lock

    def take_events(self) -> list[Event]:
        """Everything relayed since the last call (GUI thread); re-arms the next signal."""
        with self._lock:
            events, self._pending = self._pending, []
            self._signalled = False
        return events
