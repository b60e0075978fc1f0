"""One run at a time: start it, relay its events, stop it, save it, report how it ended.

The controller owns the ProfilerThread and everything tied to the run's lifetime: the session
folder (events.jsonl written live by the engine's EventLog on the profiler thread; session.json
and steps.csv by `write_all` when the run ends or is stopped), a GUI-side Session folded from
the relayed events (for a summary that fills in while the run goes on) and the LiveData buffers
the plots pull from. Widgets subscribe to its signals; none of them touches the thread.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.live_data import LiveData
from app.profiler_thread import ProfilerThread, RunnerFactory
from profiler.config import RunConfig
from profiler.outputs import EventLog, write_all
from profiler.paths import new_session_dir
from profiler.runner import Runner
from profiler.session import Session

DRAIN_INTERVAL_S = 1 / 30


class RunController(QObject):
    runStarted = Signal()
    eventsArrived = Signal(list)  # GUI thread only: a drained batch
    runEnded = Signal(str)  # status: completed, completed_with_errors, stopped, failed...

    def __init__(self, runner_factory: RunnerFactory = Runner, parent: QObject | None = None):
        super().__init__(parent)
        self.runner_factory = runner_factory
        self.thread: ProfilerThread | None = None
        self.config: RunConfig | None = None
        self.session = Session()
        self.data: LiveData | None = None
        self.session_dir: Path | None = None
        self.status: str | None = None
        self.save_error: str | None = None
        self._event_log: EventLog | None = None
        self._last_drain = 0.0
        self._drain_timer = QTimer(self)
        self._drain_timer.setSingleShot(True)
        self._drain_timer.timeout.connect(self._drain)
        self.events_received = 0

    @property
    def running(self) -> bool:
        return self.thread is not None

    def start(self, config: RunConfig, save: bool = True) -> None:
        """Start a run (the previous one must have ended)."""
        if self.running:
            raise RuntimeError("a run is already in progress")
        self.config = config
        self.status = None
        self.save_error = None
        self.session = Session()
        self.data = LiveData.from_config(config)
        self.events_received = 0
        listeners = []
        self.session_dir = None
        if save:
            label = Path(config.source.path).stem
            self.session_dir = new_session_dir(label)
            self._event_log = EventLog(self.session_dir / "events.jsonl")
            listeners.append(self._event_log)
        self.thread = ProfilerThread(config, listeners, self.runner_factory)
        self.thread.eventsReady.connect(self._on_events_ready)
        self.thread.finished.connect(self._on_thread_finished)
        self.runStarted.emit()
        self.thread.start()

    def stop(self) -> None:
        """Ask the run to end; `runEnded` follows within about a second."""
        if self.thread is not None:
            self.thread.cancel()

    def stop_and_wait(self, timeout_s: float = 15.0) -> None:
        """Stop and finish synchronously (closing the window): never destroy a running QThread."""
        thread = self.thread
        if thread is None:
            return
        thread.cancel()
        if not thread.wait(int(timeout_s * 1000)):
            thread.wait()  # the engine ends its workers within ~1 s; do not leave it orphaned
        self._finish()

    # -- events ---------------------------------------------------------------------------------
    def _on_events_ready(self) -> None:
        wait = DRAIN_INTERVAL_S - (time.monotonic() - self._last_drain)
        if wait <= 0:
            self._drain()
        elif not self._drain_timer.isActive():
            self._drain_timer.start(max(1, int(wait * 1000)))

    def _drain(self) -> None:
        if self.thread is None:
            return
        self._last_drain = time.monotonic()
        events = self.thread.take_events()
        if not events:
            return
        self.events_received += len(events)
        for event in events:
            self.session.apply(event)
            if self.data is not None:
                self.data.apply(event)
        self.eventsArrived.emit(events)

    def _on_thread_finished(self) -> None:
        if self.thread is not None:
            self.thread.wait()
            self._finish()

    def _finish(self) -> None:
        thread = self.thread
        if thread is None:
            return
        self._drain_timer.stop()
        self._drain()
        self.thread = None
        thread.eventsReady.disconnect(self._on_events_ready)
        thread.finished.disconnect(self._on_thread_finished)
        if thread.session is not None and thread.crash is None:
            self.session = thread.session
        status = "failed" if thread.crash else self.session.status
        if self._event_log is not None:
            self._event_log.close()
            self._event_log = None
        if self.session_dir is not None:
            try:
                write_all(self.session, self.session_dir)
            except Exception as exc:  # a full disk must not take the window down
                self.save_error = f"could not save the session: {exc}\n{traceback.format_exc()}"
        thread.deleteLater()
        self.status = status
        self.runEnded.emit(status)

    def session_dict(self) -> dict[str, Any]:
        return self.session.to_dict(include_samples=False) if self.session.arms else {"arms": []}
