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
session folder's lock, held by the recorded run, is a file lock against other processes, not a
thread lock.)

Work that grows with the run's length stays here too, off the GUI thread: the summary table's
numbers (`SessionFold.to_dict()` bootstraps confidence intervals) are computed when a batch size
finishes and relayed as a `summary` event, and the session's files and reports are written
here when the run ends or is stopped.
"""

from __future__ import annotations

import threading
import traceback
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

from tcprof.profiler.config import RunConfig
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.types import Event, Listener
from tcprof.profiler.recording.entry import Recording
from tcprof.profiler.run.recorded import RunnerFactory
from tcprof.profiler.run.runner import Runner


class ProfilerThread(QThread):
    """Runs `runner_factory(config, listeners).run()`; Stop is `cancel()` from any thread."""

    eventsReady = Signal()

    def __init__(
        self,
        config: RunConfig,
        listeners: list[Listener] | None = None,
        runner_factory: RunnerFactory = Runner,
        save: bool = False,
        parent: QObject | None = None,
    ) -> None:
        """save: the run is recorded through the engine's one front door
        (profiler/recording/entry.py), as `tcprof run` records it: a new session folder named
        after the model, locked for the run's life (recovery leaves it alone), events.jsonl
        written as events arrive (a failing write is one log line, and the run goes on), and
        session.json, steps.csv, report.html and report.md when the run ends. OSError (one
        line) when no session folder can be made; nothing has started then."""
        super().__init__(parent)
        self.setObjectName("ProfilerThread")
        self._lock = threading.Lock()
        self._pending: list[Event] = []
        self._signalled = False
        self.events_relayed = 0
        self.signals_emitted = 0
        # Listeners run here, off the GUI thread; the relay comes last.
        listening = [*(listeners or []), self._relay]
        self.recording: Recording | None = None
        if save:
            self.recording = Recording(
                config,
                listeners=listening,
                runner_factory=runner_factory,
                on_log_failure=self._relay,
            )
            self.runner = self.recording.recorded.runner
        else:
            self.runner = runner_factory(config, listening)
        self.session_dir = self.recording.folder if self.recording else None
        self.config = self.recording.config if self.recording else config
        self.session: Any = None
        self.summary: SessionModel | None = None  # the session as the run left it, read once
        self.save_error: str | None = None
        self.store_warning: str | None = None  # the team store (TCPROF_STORE) could not take it
        self.crash: Event | None = None

    def cancel(self) -> None:
        """Ask the run to end; the engine ends its workers within about a second."""
        self.runner.cancel()

    def run(self) -> None:  # the thread body
        try:
            self.session = self.recording.run() if self.recording else self.runner.run()
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
        self._save()

    def _summarize(self) -> dict[str, Any] | None:
        session = getattr(self.runner, "session", None)
        try:
            return session.to_dict(include_samples=False) if session is not None else None
        except Exception:
            return None

    def _save(self) -> None:
        summary = self._summarize()
        try:  # read into the model here, off the GUI thread; never into Qt's thread code
            self.summary = SessionModel.from_json(summary) if summary is not None else None
        except Exception:
            self.summary = None
        if self.recording is None:
            return
        try:
            ending = self.recording.save()
        except BaseException as exc:  # never into Qt's thread code; the lock goes either way
            self.recording.recorded.release()
            self.save_error = f"could not save the session: {exc}"
            return
        if ending.folder is not None or ending.refusal is not None:
            self.session_dir = ending.folder  # a refused run ran nothing and keeps no folder
        self.save_error = "; ".join(ending.problems) or None
        self.store_warning = self.recording.send_to_store().warning  # saved first: none lost

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
