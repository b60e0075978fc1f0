"""One run at a time: start it, relay its events, stop it, report how it ended.

The controller owns the ProfilerThread and what lives as long as a run: the session folder
(the thread writes events.jsonl live, and session.json and steps.csv when the run ends or is
stopped), the latest summary (session.json's dict, computed on the thread whenever a batch size
finishes, read into the session model once as it arrives) and the LiveData buffers the plots
pull from. Widgets subscribe to its signals; none of them touches the thread. When no session
folder can be made (an unwritable TCPROF_HOME), the run ends at once as failed and
`save_error` says why. The folder is chosen, and filled at the end with the session's files
and reports, by the engine's one recorded run (profiler/recording/entry.py), as for
`tcprof run`.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from tcprof.profiler.config import RunConfig
from tcprof.profiler.model.context import Environment
from tcprof.profiler.model.session import SessionModel

if TYPE_CHECKING:  # numpy-backed modules load on the first run, not at start-up
    from tcprof.app.plots.live_data import LiveData
    from tcprof.app.run.profiler_thread import ProfilerThread
    from tcprof.profiler.run.recorded import RunnerFactory

DRAIN_INTERVAL_S = 1 / 30


def without_folder(config: RunConfig) -> RunConfig:
    """An unsaved run (tests) has no session folder: saved weights and torch.profiler traces,
    which go into one, are dropped rather than written elsewhere. A saved run's folder is given
    to it by the recorded run (profiler/run/recorded.py)."""
    if config.artifacts_dir:
        return config
    return dataclasses.replace(config, save_weights=None, profile_steps=0)


class RunController(QObject):
    runStarted = Signal()
    eventsArrived = Signal(list)  # GUI thread only: a drained batch
    runEnded = Signal(str)  # status: completed, completed_with_errors, stopped, failed...

    def __init__(self, runner_factory: RunnerFactory | None = None, parent: QObject | None = None):
        """runner_factory(config, listeners) defaults to the engine's Runner."""
        super().__init__(parent)
        self.runner_factory = runner_factory
        # Hides QObject.thread() (the QThread this object lives in; nothing here asks for it).
        # Renaming it touches app/run/, which issue 40's one recorded run is rewriting.
        self.thread: ProfilerThread | None = None  # type: ignore[assignment]
        self.config: RunConfig | None = None
        self.summary: SessionModel | None = None
        self.environment: Environment | None = None  # the first worker's hello, typed
        self.data: LiveData | None = None
        self.session_dir: Path | None = None
        self.status: str | None = None
        self.save_error: str | None = None
        self.store_warning: str | None = None
        self._last_drain = 0.0
        self._drain_timer = QTimer(self)
        self._drain_timer.setSingleShot(True)
        self._drain_timer.timeout.connect(self._drain)
        self.events_received = 0
        self.signals_received = 0

    @property
    def running(self) -> bool:
        return self.thread is not None

    def start(self, config: RunConfig, save: bool = True) -> None:
        """Start a run (the previous one must have ended)."""
        if self.running:
            raise RuntimeError("a run is already in progress")
        from tcprof.app.plots.live_data import LiveData
        from tcprof.app.run.profiler_thread import ProfilerThread
        from tcprof.profiler.run.runner import Runner

        self.config = config
        self.status = None
        self.save_error = None
        self.store_warning = None
        self.summary = None
        self.environment = None
        self.data = LiveData.from_config(config)
        self.events_received = 0
        self.signals_received = 0
        if not save:
            config = without_folder(config)
        try:  # the folder is chosen by the engine's front door, as `tcprof run` chooses it
            self.thread = ProfilerThread(config, [], self.runner_factory or Runner, save=save)
        except OSError as exc:  # an unwritable TCPROF_HOME: said, not silent
            self._refuse(str(exc))
            return
        self.session_dir = self.thread.session_dir
        self.config = config = self.thread.config  # a saved run's names its folder
        self.thread.eventsReady.connect(self._on_events_ready)
        self.thread.finished.connect(self._on_thread_finished)
        self.runStarted.emit()
        self.thread.start()

    def _refuse(self, reason: str) -> None:
        """A run that cannot start ends as failed, with the reason as its save error, once the
        caller has finished starting it (signals in the order a real run sends them)."""
        self.session_dir = None
        self.save_error = reason
        self.runStarted.emit()
        QTimer.singleShot(0, self, self._end_refused)

    def _end_refused(self) -> None:
        if self.thread is None:
            self.status = "failed"
            self.runEnded.emit("failed")

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
        self.signals_received += 1
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
            kind = event.get("type")
            if kind == "summary":
                self.summary = SessionModel.from_json(event["session"])  # the wire's dict
                if self.data is not None:  # the markers' share of each compile cost, live
                    self.data.apply(event)
            elif kind == "hello" and self.environment is None:
                self.environment = Environment.of(event)
            elif self.data is not None:
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
        saved = thread.summary  # read into the model on the thread: its environment, arms or none
        status = "failed" if thread.crash or saved is None else saved.status
        if saved is not None:
            self.summary = saved
            self.environment = saved.runtime if saved.environment else self.environment
        self.save_error = thread.save_error
        self.store_warning = thread.store_warning  # the team store could not take it: one line
        self.session_dir = thread.session_dir  # elsewhere when its own folder could not be written
        thread.deleteLater()
        self.status = status
        self.runEnded.emit(status)

    def session(self) -> SessionModel:
        """The live summary as the typed session model (no arms before the first batch size
        ends), with the folder it is saved in."""
        if self.summary is None or not self.summary.arms:
            return SessionModel.from_json({"arms": []}, self.session_dir)
        return dataclasses.replace(self.summary, path=self.session_dir)
