"""What the window shows of a session, through one door (`show`): a run as it starts, as its
events arrive and as it ends, or a saved session opened from a file or the Sessions list, whose
recorded events replay into the plots, logs and error banner as a live run feeds them. The
session is read into the typed model once; events stay what they are on the wire (raw JSON),
read by the parts that consume them. Also the notices of what became of it: exported, logged to
trackers, recovered."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QStatusBar

from tcprof.app.window.title import session_date
from tcprof.profiler.folders.files import REPORT_HTML
from tcprof.profiler.model.context import Environment
from tcprof.profiler.model.figures import Problem
from tcprof.profiler.model.session import SessionModel

if TYPE_CHECKING:
    from tcprof.app.common.notice_bar import NoticeBar
    from tcprof.app.plots.live_plots import LivePlots
    from tcprof.app.results.results_view import ResultsView
    from tcprof.app.run.estimate import RunEstimate
    from tcprof.app.run.run_controller import RunController
    from tcprof.app.run.status import RunStatus
    from tcprof.app.sessions.actions import SessionActions
    from tcprof.app.sessions.store import LoadedSession
    from tcprof.app.window.error_banner import ErrorBanner


class Window(Protocol):
    """What of the main window a session is shown in (main_window.py imports this module)."""

    results: ResultsView
    banner: ErrorBanner
    notice: NoticeBar
    status: RunStatus
    controller: RunController
    sessions: SessionActions
    run_estimate: RunEstimate
    environment: Environment | None  # the probe's, typed
    pool: Any

    @property
    def plots(self) -> LivePlots | None: ...

    def ensure_plots(self) -> LivePlots: ...

    def statusBar(self) -> QStatusBar: ...  # noqa: N802 (Qt API)

    def _update_title(self) -> None: ...

    def _update_actions(self) -> None: ...


class SessionDisplay:
    """The window's parts filled from one session; the window's slots for runs and sessions."""

    def __init__(self, window: Window) -> None:
        self.window = window

    def show(
        self,
        session: SessionModel,
        folder: Path | None,
        recorded: list[dict[str, Any]] | None = None,
    ) -> None:
        """Show one session in every part (recorded: a saved session's events, replayed)."""
        window = self.window
        if recorded is not None:  # the plots and logs fed from its events
            self._replay(session, recorded)
        window.results.show_session(session)
        if recorded is not None:
            window.results.show_environment(session.runtime)
        else:
            window.results.show_environment(window.environment or window.controller.environment)
        window._update_title()
        window._update_actions()

    def _replay(self, model: SessionModel, events: list[dict[str, Any]]) -> None:
        window = self.window
        names = [a.name for a in model.arms]
        from tcprof.app.plots.live_data import LiveData  # numpy-backed: loaded when first needed

        plots = window.ensure_plots()
        plots.start(LiveData.from_session(model, events))
        plots.stop()  # one redraw, no timer: nothing more will arrive
        window.banner.clear()
        for event in events:
            if event.get("type") == "error":
                window.banner.add(event, names)
        window.results.logs.start(names)
        window.results.logs.add_events(events)

    def opened(self, loaded: LoadedSession, model: SessionModel) -> None:
        """A saved session opened (`model`: its session, read once by the Sessions' actions):
        shown, and the status line says which."""
        self.show(model, loaded.folder, loaded.events)
        status = model.status.replace("_", " ")
        self.window.status.finish(
            f"Saved session {loaded.folder.name} · {status} · {session_date(model)} · "
            "Run starts a new one"
        )

    def on_events(self, events: list[dict[str, Any]]) -> None:
        """A drained batch of a run's events: logs, status, errors, and the results after each
        batch size ends."""
        window = self.window
        config = window.controller.config
        names = [a.name for a in config.run_arms] if config else []
        window.results.logs.add_events(events)
        window.status.update_from(events)
        refresh = False
        for e in events:
            kind = e.get("type")
            if kind == "error":
                window.banner.add(e, names)
            elif kind == "hello" and window.environment is None:
                window.results.show_environment(Environment.of(e))
            elif kind == "bs_done":
                refresh = True
        if refresh:
            window.results.show_session(window.controller.session())

    def on_run_ended(self, status: str) -> None:
        window = self.window
        if window.plots is not None:
            window.plots.stop()
        if window.pool is not None:
            window.pool.fill()
        session = window.controller.session()
        folder = window.controller.session_dir
        window.sessions.on_run_ended(session, folder)
        self.show(session, folder)
        window.status.finish_run(status, session, folder)
        window.run_estimate.run_ended()
        if window.controller.save_error:
            window.banner.add(Problem("save", window.controller.save_error, None, None, None), [])
        if window.controller.store_warning:  # saved locally first: nothing is lost
            window.notice.show_notice(f"Warning: {window.controller.store_warning}")

    # -- what became of a saved session: exported, logged to trackers, recovered --------------
    def exported(self, paths: list[str], folder: str) -> None:
        report = Path(folder) / REPORT_HTML
        self.window.notice.show_notice(
            f"Exported report.html, report.md, steps.csv, session.json and reproduce.py to {folder}",
            [
                ("Open report", lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(report)))),
                ("Open folder", lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(folder))),
            ],
        )

    def logged(self, logged: list[str], warnings: list[str]) -> None:
        """Where the session went, and each tracker that could not take it (one line each)."""
        lines = [*logged, *(f"Warning: {w}" for w in warnings)]
        if warnings:
            lines.append("The session is still saved in its folder: nothing is lost.")
        self.window.notice.show_notice("\n".join(lines))

    def recovered(self, text: str) -> None:
        self.window.notice.show_notice(text, [("Sessions…", self.window.sessions.show_sessions)])
        self.window.statusBar().showMessage(text, 15_000)
