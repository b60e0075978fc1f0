"""One recorded run, from its checks to its trackers: the front door of `tcprof run`, `tcprof.run`
and the window's Run, so a session folder is the same whichever door made it.

`Recording` chooses and locks the folder (`--out`, else a new session folder named after the model:
`run_label`), checks the tracker options, and wraps run/recorded.py's `RecordedRun` (the preflight
check, the live events.jsonl, the run, session.json and steps.csv); `save()` adds report.html and
report.md, `log_to_trackers()` the trackers and `send_to_store()` the team's store. Used as a context manager, it releases the folder
however the block ends and, for a command's own process (`stop_on_signals`), ends the run on
SIGTERM and SIGHUP as on Ctrl+C (on the main thread only). What each door shows (a terminal line, a
warning, a signal to the GUI) stays with the door: nothing here prints.
"""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from tcprof.profiler.config import PICKLED_MODEL_FILE, ConfigError, RunConfig
from tcprof.profiler.folders.run_folder import open_run_folder
from tcprof.profiler.protocol.types import Json, Listener
from tcprof.profiler.recording.tracking import Logged, check_tracker_options, log_saved
from tcprof.profiler.run.recorded import RecordedRun, RunnerFactory, engine_runner
from tcprof.profiler.session.fold import SessionFold
from tcprof.profiler.team_store.address import store_uri
from tcprof.profiler.team_store.sending import Sent, send, store_spec
from tcprof.profiler.trackers.specs import install_hint, missing_library

# The runner a door gets when it names none (the engine's): tests of the CLI and the API,
# which cannot pass one through a command line, set the scripted fake worker's here.
default_runner: RunnerFactory = engine_runner
Prepare = Callable[[RunConfig, Path], RunConfig]  # the config, once its folder is known


def run_label(config: RunConfig) -> str:
    """What a new session folder is named after: the script, the model given as a Python
    object, or the model file (an example's file is named after the example)."""
    if config.script is not None:
        return Path(config.script.path).stem
    if config.source.path == PICKLED_MODEL_FILE and config.source.model:
        return config.source.model
    return Path(config.source.path).stem


@dataclasses.dataclass(frozen=True)
class Ending:
    """A recorded run's end: the session's dict (samples included), where it was saved (None:
    nowhere, `problems` says why) and a line per problem (the session kept elsewhere, a report
    not written). A refused run (`refusal`: what was found wrong) saves nothing."""

    session: Json
    folder: Path | None
    problems: list[str]
    refusal: str | None = None


class Recording:
    """A run recorded through the one front door. OSError (one line) when the folder cannot be
    used, ConfigError for bad tracker options: nothing has started then, nothing is locked."""

    def __init__(
        self,
        config: RunConfig,
        *,
        out: str | Path | None = None,
        force: bool = False,
        label: str | None = None,
        listeners: Sequence[Listener] = (),
        on_log_failure: Listener | None = None,
        runner_factory: RunnerFactory | None = None,
        prepare: Prepare | None = None,
        trackers: Sequence[str] = (),
        mlflow_experiment: str | None = None,
        store: str | None = None,
        stop_on_signals: bool = False,
    ) -> None:
        """prepare(config, folder): the config as run, made once the folder exists (a model
        given as a Python object is written there). stop_on_signals: SIGTERM and SIGHUP end
        the run as Ctrl+C does, while the recording is entered (a command's own process).
        store: the team's store (None: TCPROF_STORE, else none)."""
        self.store = store_uri(store)
        if self.store and missing_library("mlflow"):
            raise ConfigError(f"--store needs the mlflow package: {install_hint('mlflow')}")
        checked = [*trackers, store_spec(self.store)] if self.store else trackers
        problem = check_tracker_options(checked, mlflow_experiment)
        if problem:  # before the run: not after an hour of it
            raise ConfigError(problem)
        sent_to_store = store_spec(self.store) if self.store else None
        self.trackers = [t for t in trackers if t.strip() != sent_to_store]  # logged once
        self.mlflow_experiment = mlflow_experiment
        folder, lock = open_run_folder(out, force, run_label(config) if label is None else label)
        try:
            if prepare is not None:
                config = prepare(config, folder)
            self.recorded = RecordedRun(
                config,
                folder,
                lock,
                listeners=listeners,
                runner_factory=runner_factory or default_runner,
                on_log_failure=on_log_failure,
            )
        except BaseException:
            lock.release()  # nothing started: the folder is not left locked
            raise
        self.stop_on_signals = stop_on_signals
        self.signalled: list[int] = []
        self.ending: Ending | None = None

    @property
    def config(self) -> RunConfig:
        """The config as run (its artifacts_dir: the folder)."""
        return self.recorded.config

    @property
    def folder(self) -> Path:
        return self.recorded.folder

    @property
    def session(self) -> SessionFold:
        """The session as folded so far."""
        return self.recorded.session

    @property
    def refusal(self) -> str | None:
        """What the check before the run found wrong (nothing ran), or None."""
        return self.recorded.refusal

    @property
    def interrupted(self) -> bool:
        """Ended by Ctrl+C, SIGTERM or SIGHUP: what was measured is kept."""
        return self.recorded.interrupted or bool(self.signalled)

    def cancel(self) -> None:
        """Ask the run to end, from any thread."""
        self.recorded.cancel()

    def run(self) -> SessionFold:
        """The checks, then the run to its end (or until cancelled or interrupted)."""
        return self.recorded.run()

    def save(self) -> Ending:
        """session.json and steps.csv (the session first: a failing report keeps it), then
        report.html and report.md beside them; the folder's lock is released."""
        if self.refusal is not None:
            self.recorded.save()  # a refused run keeps nothing
            self.ending = Ending({}, None, [], self.refusal)
            return self.ending
        try:
            full = self.session.to_dict()
        except Exception:  # a session that cannot be summed up is still saved, as it stands
            full = None
        saved = self.recorded.save(full)
        problems = [saved.problem] if saved.problem else []
        data = full if full is not None else {}
        if saved.folder is not None and full is not None:
            problems += save_reports(full, saved.folder)
        self.ending = Ending(data, saved.folder, problems)
        return self.ending

    def log_to_trackers(self, on_logged: Callable[[str], None] | None = None) -> Logged:
        """The saved session logged to the trackers asked for (none: nothing to do); a
        tracker that fails loses nothing, the session is saved first."""
        folder = self.ending.folder if self.ending is not None else None
        if folder is None or not self.trackers:
            return Logged()
        return log_saved(folder, self.trackers, self.mlflow_experiment, on_logged)

    def send_to_store(self, on_logged: Callable[[str], None] | None = None) -> Sent:
        """The saved session logged to the team's store (none set: nothing to do); a store
        that cannot be reached is one line of warning, the session is saved first."""
        folder = self.ending.folder if self.ending is not None else None
        if folder is None or self.store is None:
            return Sent()
        return send(folder, self.store, self.mlflow_experiment, on_logged)

    def __enter__(self) -> Recording:
        self._signals = _stopped_by_signals(self.cancel, self.signalled, self.stop_on_signals)
        self._signals.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._signals.__exit__(kind, exc, tb)
        self.recorded.release()


def save_reports(session: Json, folder: Path) -> list[str]:
    """The reports a run writes beside its session; a line per problem (never an exception)."""
    from tcprof.profiler.report.export import REPORT_FORMATS, export_reports

    try:
        export_reports(session, folder, REPORT_FORMATS)
    except OSError as exc:
        return [f"could not write the reports in {folder} ({exc.strerror or exc})"]
    return []


@contextlib.contextmanager
def _stopped_by_signals(
    cancel: Callable[[], Any], seen: list[int], wanted_here: bool
) -> Iterator[list[int]]:
    """SIGTERM and SIGHUP (a closed terminal) end the run as Ctrl+C does: the runner stops its
    workers and what was measured is written. Each signal seen is added to `seen`."""

    def stop(signum: int, _frame: object) -> None:
        seen.append(signum)
        cancel()

    wanted = [getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    if not wanted_here or threading.current_thread() is not threading.main_thread():
        wanted = []  # signal handlers belong to the main thread
    previous = {sig: signal.signal(sig, stop) for sig in wanted}
    try:
        yield seen
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
