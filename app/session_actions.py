"""What the window does with whole sessions: export, re-open, list, compare, recover.

The window shows one session at a time: the run that just ended, or a saved one the user
opened. This object keeps track of it (its dict and its folder), restores a saved one into the
plots and tabs by replaying its events through the same public methods a live run uses, keeps
the Code / Profile / Weights tabs in step, and runs the slow parts (exporting reports,
recovering crashed sessions at start-up) off the GUI thread.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QFileDialog

from app.background import BackgroundCalls
from app.code_view import CodeView
from app.compare_view import CompareDialog
from app.measurement_options import MEASUREMENT_KEYS
from app.profile_view import ProfileView
from app.session_store import SESSION, LoadedSession, SessionLoadError, load_session
from app.sessions_dialog import SessionsDialog
from app.weights_view import WeightsView

if TYPE_CHECKING:
    from app.main_window import MainWindow

EXPORT_FORMATS = ("html", "md", "csv", "json")


def _export(source: dict[str, Any] | Path, out_dir: Path) -> dict[str, Any]:
    """Runs on a background thread: read the full session (samples included) and export."""
    from profiler.report.export import export_reports
    from profiler.session_files import read_session

    if isinstance(source, Path):
        source = read_session(source)  # its artefact paths found under its folder
    paths = export_reports(source, out_dir, EXPORT_FORMATS)
    return {"paths": [str(p) for p in paths], "folder": str(out_dir)}


def _recover(min_age_s: float | None) -> dict[str, Any]:
    """Runs on a background thread (profiler.recovery loads the numpy-backed session model,
    which the window does not import at start-up)."""
    from profiler import recovery

    age = recovery.DEFAULT_MIN_AGE_S if min_age_s is None else min_age_s
    results = recovery.recover_all(None, age)
    return {"results": results, "text": recovery.describe(results)}


class SessionActions(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.calls = BackgroundCalls(self)
        self.session: dict[str, Any] | None = None  # what the window shows
        self.folder: Path | None = None  # where it is saved
        self.full: dict[str, Any] | None = None  # the full dict, when loaded from disk
        self.saved = False  # True when the window shows a re-opened session
        self.exporting = False
        self.last_export: list[Path] = []
        self.dialog: SessionsDialog | None = None
        self.compare_dialog: CompareDialog | None = None
        self.recovered: list[Any] | None = None
        self.code = CodeView()
        self.profile = ProfileView()
        self.weights = WeightsView()
        for widget, title in (
            (self.code, "Code"),
            (self.profile, "Profile"),
            (self.weights, "Weights"),
        ):
            window.results.addTab(widget, title)

    # -- the session the window shows ----------------------------------------------------------
    def has_session(self) -> bool:
        return bool(self.session and self.session.get("arms"))

    def _show_tabs(self, session: dict[str, Any]) -> None:
        self.code.show_session(session)
        self.profile.show_session(session)
        self.weights.show_session(session)

    def on_run_started(self) -> None:
        self.session, self.folder, self.full, self.saved = None, None, None, False
        self.window.setWindowTitle(self.window.base_title)
        self._show_tabs({"arms": []})
        self._refresh_dialog()

    def on_run_ended(self) -> None:
        controller = self.window.controller
        self.session = controller.session_dict()
        self.folder = controller.session_dir
        self.full, self.saved = None, False
        self._show_tabs(self.session)
        self._refresh_dialog()

    # -- opening a saved session ---------------------------------------------------------------
    def open_session(self, path: str | Path) -> bool:
        """Show a saved session (folder, session.json or events.jsonl) as it was."""
        if self.window.controller.running:
            return False
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            loaded = load_session(path)
        except SessionLoadError as exc:
            self.window.banner.add({"kind": "open", "message": str(exc)}, [])
            return False
        finally:
            QGuiApplication.restoreOverrideCursor()
        self._restore(loaded)
        return True

    def _restore(self, loaded: LoadedSession) -> None:
        from app.live_data import LiveData

        w = self.window
        session = loaded.session
        config = session.get("config") or {}
        names = [str(a.get("name")) for a in session.get("arms") or []]
        data = LiveData(
            names,
            list(config.get("batch_sizes") or []),
            int(config.get("warmup") or 0),
            int(config.get("steps") or 0),
            int(config.get("replicates") or 1),
        )
        for event in loaded.events:
            data.apply(event)
        w.ensure_plots()
        w.plots.start(data)
        w.plots.stop()  # one redraw, no timer: nothing more will arrive
        w.banner.clear()
        for event in loaded.events:
            if event.get("type") == "error":
                w.banner.add(event, names)
        w.results.logs.start(names)
        w.results.logs.add_events(loaded.events)
        w.results.show_summary(session)
        w.results.show_environment(session.get("environment"))
        self._restore_setup(config)
        self.session, self.full, self.folder, self.saved = session, session, loaded.folder, True
        self._show_tabs(session)
        started = session.get("started_at")
        when = (
            time.strftime("%Y-%m-%d %H:%M", time.localtime(started))
            if isinstance(started, (int, float))
            else "unknown date"
        )
        status = str(session.get("status") or "?").replace("_", " ")
        w.status.finish(
            f"Saved session {loaded.folder.name} · {status} · {when} · Run starts a new one"
        )
        w.setWindowTitle(f"{w.base_title} — {loaded.folder.name} (saved session)")
        self._refresh_dialog()
        w._update_actions()

    def _restore_setup(self, config: dict) -> None:
        """Put the saved run's setup back in the panel, so Run repeats it (say, after a code
        change, to compare with the saved one)."""
        setup = self.window.setup
        state = {
            "arms": config.get("arms") or [],
            "batch_sizes": ", ".join(str(b) for b in config.get("batch_sizes") or []),
            **{
                k: config[k]
                for k in (
                    "warmup",
                    "steps",
                    "seed",
                    "optimizer",
                    "lr",
                    "device",
                    "debug",
                    "profile_steps",
                    *MEASUREMENT_KEYS,
                )
                if k in config
            },
            "save_weights": config.get("save_weights"),
        }
        setup.restore(state)
        source = config.get("source") or {}
        path = source.get("path")
        if isinstance(path, str) and Path(path).is_file():
            setup.model.set_path(
                path,
                source.get("model"),
                source.get("factory") or "",
                source.get("input_shape") or "",
            )

    # -- the Sessions list and Compare ---------------------------------------------------------
    def show_sessions(self) -> SessionsDialog:
        if self.dialog is None:
            self.dialog = SessionsDialog(self.window)
            self.dialog.openRequested.connect(self.open_session)
            self.dialog.compareRequested.connect(self.compare_with)
        self._refresh_dialog()
        self.dialog.refresh()
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def _refresh_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.set_can_compare(self.has_session())

    def compare_with(self, before_path: str | Path) -> CompareDialog | None:
        """Compare a saved session (before) with the one the window shows (after)."""
        if not self.has_session():
            return None
        try:
            before = load_session(before_path)
        except SessionLoadError as exc:
            self.window.banner.add({"kind": "compare", "message": str(exc)}, [])
            return None
        after_label = f"{self.folder.name if self.folder else 'current run'} (in the window)"
        self.compare_dialog = CompareDialog(
            before.session, self.session or {}, before.folder.name, after_label, self.window
        )
        self.compare_dialog.show()
        return self.compare_dialog

    # -- export --------------------------------------------------------------------------------
    def _export_source(self) -> dict[str, Any] | Path | None:
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
        folder = QFileDialog.getExistingDirectory(self.window, "Export the reports into", start)
        if folder:
            self.export_to(folder)

    def export_to(self, folder: str | Path) -> bool:
        """Write report.html, report.md, steps.csv, session.json and reproduce.py into folder."""
        source = self._export_source()
        if source is None or self.exporting:
            return False
        self.exporting = True
        self.window.status.label.setText(f"Exporting to {folder}…")
        self.window._update_actions()
        self.calls.submit(_export, self._export_done, source, Path(folder))
        return True

    def _export_done(self, result: dict[str, Any]) -> None:
        self.exporting = False
        self.window._update_actions()
        if "error" in result:
            self.window.banner.add({"kind": "export", **result["error"]}, [])
            return
        self.last_export = [Path(p) for p in result["paths"]]
        folder = result["folder"]
        report = Path(folder) / "report.html"
        self.window.status.label.setText(f"Exported {len(self.last_export)} files to {folder}")
        self.window.notice.show_notice(
            f"Exported report.html, report.md, steps.csv, session.json and reproduce.py to {folder}",
            [
                ("Open report", lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(report)))),
                ("Open folder", lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(folder))),
            ],
        )

    # -- recovery at start-up --------------------------------------------------------------------
    def recover_later(self, min_age_s: float | None = None) -> None:
        """Scan for sessions cut off by a crash once the window is up, off the GUI thread."""
        QTimer.singleShot(0, lambda: self.calls.submit(_recover, self._recovered, min_age_s))

    def _recovered(self, result: dict[str, Any]) -> None:
        if "error" in result:  # an unexpected failure: not worth a banner at start-up
            return
        self.recovered = result["results"]
        if result["text"]:
            self.window.notice.show_notice(result["text"], [("Sessions…", self.show_sessions)])
            self.window.statusBar().showMessage(result["text"], 15_000)

    def shutdown(self) -> None:
        self.calls.shutdown()
        for dialog in (self.dialog, self.compare_dialog):
            if dialog is not None:
                dialog.close()
