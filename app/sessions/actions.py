"""What can be done with whole sessions: open, export, log to a tracker, list, compare any two,
recover.

The window shows one session at a time: the run that just ended, or a saved one the user
opened. This object keeps track of which (its typed model and its folder) and does the work on it,
the slow parts (exporting reports, logging to TensorBoard or MLflow, recovering crashed sessions
at start-up) off the GUI thread.
It never touches the window's parts: it tells whoever listens through its signals, so it is
tested alone and the window decides how each outcome is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QWidget

from tcprof.app.common.background import BackgroundCalls, Failure, failure_of
from tcprof.app.results.compare_view import CompareDialog
from tcprof.app.sessions.dialog import SessionsDialog
from tcprof.app.sessions.store import SESSION, SessionLoadError, load_session
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.session import SessionModel

EXPORT_FORMATS = ("html", "md", "csv", "json")


@dataclass(frozen=True)
class Exported:
    """What an export wrote: its files and their folder."""

    paths: tuple[str, ...]
    folder: str


@dataclass(frozen=True)
class Logged:
    """A line per tracker logged to, a warning per one that failed."""

    logged: tuple[str, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class RecoveryDone:
    """The sessions recovered at start-up, and what was done, in a sentence ('' if nothing)."""

    results: list[Any]
    text: str


def _export(source: SessionModel | Path, out_dir: Path) -> Exported:
    """Runs on a background thread: read the full session (samples included) and export
    (session.json is written from its dict, the file's own form)."""
    from tcprof.profiler.folders.files import read_session
    from tcprof.profiler.report.export import export_reports

    # a saved file's artefact paths are found under its folder
    plain = read_session(source) if isinstance(source, Path) else source.to_dict()
    paths = export_reports(plain, out_dir, EXPORT_FORMATS)
    return Exported(tuple(str(p) for p in paths), str(out_dir))


def _log(folder: Path, specs: list[str], experiment: str | None) -> Logged | Failure:
    """Runs on a background thread: the trackers' libraries are imported there, when used."""
    from tcprof.profiler.trackers import log_session

    logged: list[str] = []
    try:
        warnings = log_session(folder, specs, mlflow_experiment=experiment, on_logged=logged.append)
    except ValueError as exc:  # a bad spec, a session that cannot be read: one line
        return Failure("log", str(exc))
    return Logged(tuple(logged), tuple(warnings))


def _recover(min_age_s: float | None) -> RecoveryDone:
    """Runs on a background thread (tcprof.profiler.folders.recovery loads the numpy-backed session model,
    which the window does not import at start-up)."""
    from tcprof.profiler.folders import recovery

    age = recovery.DEFAULT_MIN_AGE_S if min_age_s is None else min_age_s
    results = recovery.recover_all(None, age)
    return RecoveryDone(list(results), recovery.describe(results))


class SessionActions(QObject):
    sessionOpened = Signal(object, object)  # LoadedSession and its model, read once: show it
    setupRestored = Signal(dict)  # the opened session's config: put it back in the setup panel
    problem = Signal(dict)  # {"kind": "open" | "compare" | "export", "message": ...}
    message = Signal(str)  # a line for the status bar
    exportingChanged = Signal(bool)
    exportDone = Signal(list, str)  # the files written, their folder
    loggingChanged = Signal(bool)
    logDone = Signal(list, list)  # a line per tracker logged to, a warning per one that failed
    recovered = Signal(str)  # what was recovered at start-up, in a sentence

    def __init__(self, parent: QWidget | None = None) -> None:
        """parent (the window) is only the parent of the dialogs this object opens."""
        super().__init__(parent)
        self.calls = BackgroundCalls(self)
        self.session: SessionModel | None = None  # what the window shows
        self.folder: Path | None = None  # where it is saved
        self.full: SessionModel | None = None  # the full session, when loaded from disk
        self.saved = False  # True when the window shows a re-opened session
        self.run_in_progress = False
        self.exporting = False
        self.logging = False
        self.last_export: list[Path] = []
        self.dialog: SessionsDialog | None = None
        self.compare_dialog: CompareDialog | None = None
        self.recovered_results: list[Any] | None = None

    def _dialog_parent(self) -> QWidget | None:
        parent = self.parent()
        return parent if isinstance(parent, QWidget) else None

    # -- the session the window shows ----------------------------------------------------------
    def has_session(self) -> bool:
        return bool(self.session and self.session.arms)

    def _set_shown(self, session: SessionModel | None, folder: Path | None, saved: bool) -> None:
        self.session, self.folder, self.saved = session, folder, saved
        self.full = session if saved else None
        if self.dialog is not None:
            self.dialog.set_can_compare(self.has_session())

    def on_run_started(self) -> None:
        """A run replaces what is shown; nothing is opened until it ends."""
        self.run_in_progress = True
        self._set_shown(None, None, saved=False)

    def on_run_ended(self, session: SessionModel, folder: Path | None) -> None:
        self.run_in_progress = False
        self._set_shown(session, folder, saved=False)

    # -- opening a saved session ---------------------------------------------------------------
    def open_session(self, path: str | Path) -> bool:
        """Open a saved session (folder, session.json or events.jsonl): it becomes the one
        shown (sessionOpened) and its setup is offered back (setupRestored)."""
        if self.run_in_progress:
            return False
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            loaded = load_session(path)
        except SessionLoadError as exc:
            self.problem.emit({"kind": "open", "message": str(exc)})
            return False
        finally:
            QGuiApplication.restoreOverrideCursor()
        model = SessionModel.from_json(loaded.session, loaded.folder)
        self._set_shown(model, loaded.folder, saved=True)
        self.sessionOpened.emit(loaded, model)
        self.setupRestored.emit(thaw(model.config))
        return True

    # -- the Sessions list and Compare ---------------------------------------------------------
    def show_sessions(self) -> SessionsDialog:
        if self.dialog is None:
            self.dialog = SessionsDialog(self._dialog_parent())
            self.dialog.openRequested.connect(self.open_session)
            self.dialog.compareRequested.connect(self.compare_with)
            self.dialog.comparePairRequested.connect(self.compare_pair)
            self.dialog.renamed.connect(self._folder_renamed)
        self.dialog.set_can_compare(self.has_session())
        self.dialog.refresh()
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def compare_with(self, other_path: str | Path) -> CompareDialog | None:
        """Compare a saved session with the one the window shows (the newer is "after")."""
        if self.session is None or not self.has_session():
            return None
        try:
            other = load_session(other_path)
        except SessionLoadError as exc:
            self.problem.emit({"kind": "compare", "message": str(exc)})
            return None
        shown = f"{self.folder.name if self.folder else 'current run'} (in the window)"
        other_model = SessionModel.from_json(other.session, other.folder)
        return self._show_comparison(other_model, self.session, other.folder.name, shown)

    def compare_pair(self, first: str | Path, second: str | Path) -> CompareDialog | None:
        """Compare any two saved sessions (the newer is "after")."""
        try:
            a, b = load_session(first), load_session(second)
        except SessionLoadError as exc:
            self.problem.emit({"kind": "compare", "message": str(exc)})
            return None
        first_model = SessionModel.from_json(a.session, a.folder)
        second_model = SessionModel.from_json(b.session, b.folder)
        return self._show_comparison(first_model, second_model, a.folder.name, b.folder.name)

    def _show_comparison(
        self, first: SessionModel, second: SessionModel, first_label: str, second_label: str
    ) -> CompareDialog:
        self.compare_dialog = CompareDialog(
            first, second, first_label, second_label, self._dialog_parent()
        )
        self.compare_dialog.show()
        return self.compare_dialog

    def _folder_renamed(self, old: str, new: str) -> None:
        """The session shown was renamed in the list: export and compare find it anew."""
        if self.folder is not None and self.folder == Path(old):
            self.folder = Path(new)

    # -- export --------------------------------------------------------------------------------
    def _export_source(self) -> SessionModel | Path | None:
        if self.full is not None:
            return self.full
        if self.folder is not None and (self.folder / SESSION).is_file():
            return self.folder / SESSION
        return None

    def can_export(self) -> bool:
        return not self.exporting and self._export_source() is not None

    def export_dialog(self) -> None:
        if not self.can_export():
            return
        start = str(self.folder or Path.home())
        folder = QFileDialog.getExistingDirectory(
            self._dialog_parent(), "Export the reports into", start
        )
        if folder:
            self.export_to(folder)

    def export_to(self, folder: str | Path) -> bool:
        """Write report.html, report.md, steps.csv, session.json and reproduce.py into folder;
        exportDone (or problem) follows."""
        source = self._export_source()
        if source is None or self.exporting:
            return False
        self._set_exporting(True)
        self.message.emit(f"Exporting to {folder}…")
        self.calls.submit(_export, self._export_done, source, Path(folder))
        return True

    def _set_exporting(self, exporting: bool) -> None:
        self.exporting = exporting
        self.exportingChanged.emit(exporting)

    def _export_done(self, result: Exported | object) -> None:
        self._set_exporting(False)
        if not isinstance(result, Exported):
            self._failed(result, "export")
            return
        self.last_export = [Path(p) for p in result.paths]
        self.message.emit(f"Exported {len(self.last_export)} files to {result.folder}")
        self.exportDone.emit(list(result.paths), result.folder)

    def _failed(self, result: object, kind: str) -> None:
        """A background call's failure (its own, or an exception's), shown as `kind`'s."""
        failure = result if isinstance(result, Failure) else failure_of(result)
        self.problem.emit((failure or Failure(kind, repr(result))).as_problem(kind))

    # -- logging to a tracker (TensorBoard, MLflow) ------------------------------------------------
    def can_log(self) -> bool:
        """A session saved in its folder, and no logging under way."""
        return not self.logging and self.folder is not None and (self.folder / SESSION).is_file()

    def log_dialog(self) -> None:
        if not self.can_log() or self.folder is None:
            return
        from tcprof.app.sessions.tracker_dialog import TrackerDialog

        dialog = TrackerDialog(self.folder, self._dialog_parent())
        if dialog.exec() == TrackerDialog.DialogCode.Accepted:
            self.log_to([dialog.spec()], dialog.experiment())

    def log_to(self, specs: list[str], experiment: str | None = None) -> bool:
        """Log the session shown to the trackers specs name (`tensorboard:DIR`, `mlflow:URI`),
        off the GUI thread; logDone (or problem) follows."""
        if not self.can_log() or self.folder is None:
            return False
        self._set_logging(True)
        self.message.emit(f"Logging {self.folder.name} to {', '.join(specs)}…")
        self.calls.submit(_log, self._log_done, self.folder, list(specs), experiment)
        return True

    def _set_logging(self, logging: bool) -> None:
        self.logging = logging
        self.loggingChanged.emit(logging)

    def _log_done(self, result: Logged | object) -> None:
        self._set_logging(False)
        if not isinstance(result, Logged):
            self._failed(result, "log")
            return
        logged, warnings = list(result.logged), list(result.warnings)
        self.message.emit(warnings[0] if warnings else (logged[0] if logged else "Logged"))
        self.logDone.emit(logged, warnings)

    # -- recovery at start-up --------------------------------------------------------------------
    def recover_later(self, min_age_s: float | None = None) -> None:
        """Scan for sessions cut off by a crash once the window is up, off the GUI thread."""
        QTimer.singleShot(0, lambda: self.calls.submit(_recover, self._recovered, min_age_s))

    def _recovered(self, result: RecoveryDone | object) -> None:
        if not isinstance(result, RecoveryDone):  # an unexpected failure: not worth a banner
            return
        self.recovered_results = result.results
        if result.text:
            self.recovered.emit(result.text)

    def shutdown(self) -> None:
        self.calls.shutdown()
        for dialog in (self.dialog, self.compare_dialog):
            if dialog is not None:
                dialog.close()
