"""The main window: setup on the left, live plots and results on the right, run status below.

It wires the parts together and owns the conventions (actions and shortcuts, drag and drop,
recent files, persisted settings, closing safely mid-run); the parts themselves live in their
own modules and talk to it through signals. Every session reaches the parts through one
door, `SessionDisplay.show` (session_display.py): a run as it starts and ends, a saved session
opened from a file or the Sessions list (recovered ones included). Nothing here imports torch:
models are inspected, probed and run by worker processes through the engine.

Opening a session never runs code: its model is shown as text until the user confirms, in the
notice bar, that the file may be imported (model_consent.py; model_picker.py says which files
are trusted).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QWidget,
)

from tcprof.app.common.background import BackgroundCalls, Failure
from tcprof.app.common.notice_bar import NoticeBar
from tcprof.app.common.settings import Preferences
from tcprof.app.plots.plots_slot import PlotsSlot
from tcprof.app.results.results_view import ResultsView
from tcprof.app.run.estimate import RunEstimate
from tcprof.app.run.run_controller import RunController
from tcprof.app.run.status import RunStatus
from tcprof.app.sessions.actions import SessionActions
from tcprof.app.setup.model_consent import ModelConsent
from tcprof.app.setup.setup_panel import MODEL_TRUSTED, SetupPanel
from tcprof.app.window.actions import WindowActions, make_actions
from tcprof.app.window.close_guard import CloseGuard
from tcprof.app.window.diagnose import RunVariants
from tcprof.app.window.environment_probe import request_environment
from tcprof.app.window.error_banner import ErrorBanner
from tcprof.app.window.layout import WindowLayout
from tcprof.app.window.script_opening import ScriptOpening
from tcprof.app.window.session_display import SessionDisplay
from tcprof.app.window.stale_results import StaleResults
from tcprof.app.window.title import TITLE, window_title
from tcprof.profiler.config import ConfigError
from tcprof.profiler.config.examples import list_examples
from tcprof.profiler.folders.home import sessions_dir
from tcprof.profiler.model.context import Environment
from tcprof.profiler.model.session import SessionModel

if TYPE_CHECKING:  # numpy-backed: loaded with the first run or opened session
    from tcprof.app.plots.live_plots import LivePlots

OPENABLE = (".py", ".json", ".jsonl")
DEFAULT_EXAMPLE = "simple"
RUN_TEXT = "▶ Run"
MODEL_LOAD_ERRORS = ("load", "syntax")  # the error kinds a model that loads makes stale
INSPECT_AND_RUN_TEXT = "▶ Inspect and run…"


class MainWindow(QMainWindow):
    """The window's parts, declared: what the rest of the app and the tests may reach."""

    setup: SetupPanel
    results: ResultsView
    controller: RunController
    sessions: SessionActions
    commands: WindowActions
    status: RunStatus
    banner: ErrorBanner
    notice: NoticeBar
    consent: ModelConsent
    plots_slot: PlotsSlot  # holds `plots` once built
    variants: RunVariants

    def __init__(
        self,
        background: bool = True,
        runner_factory: Callable[..., Any] | None = None,
        parent: QWidget | None = None,
        prewarm: bool = False,
    ) -> None:
        """background=False skips the start-up worker calls (environment probe, model
        inspection, recovery): for tests that only exercise the window itself. prewarm keeps two
        worker processes warmed up (torch and TorchDynamo imported) so that Run measures at once."""
        super().__init__(parent)
        self.setWindowTitle(TITLE)
        self.setAcceptDrops(True)
        self.prefs = Preferences()
        self.background = BackgroundCalls(self) if background else None
        self.pool: Any = None
        if prewarm and runner_factory is None:
            from tcprof.profiler.process.pool import WorkerPool
            from tcprof.profiler.run.runner import Runner

            self.pool = WorkerPool(size=2)
            runner_factory = functools.partial(Runner, pool=self.pool)
        self.controller = RunController(runner_factory, self)
        self.environment: Environment | None = None  # the probe's answer, typed
        self.setup = SetupPanel(self.background)
        self.banner = ErrorBanner()
        self.notice = NoticeBar()
        self.plots_slot = PlotsSlot()
        self.results = ResultsView()
        self.status = RunStatus()
        self.sessions = SessionActions(self)
        self.consent = ModelConsent(self.setup.model, self.notice, self, self.setup.script)
        self._lay_out()
        self.display = SessionDisplay(self)  # what it shows of a session, and a run's events
        self.commands = make_actions(self)
        self.scripts = ScriptOpening(self)  # Open script…, a dropped .py: script or model?
        self.run_estimate = RunEstimate(self.setup.config, probe=self.setup.inspection)
        self.run_estimate.place_after(self.commands.toolbar, self.commands.stop)
        self.close_guard = CloseGuard(self, lambda: self.controller.running, self.status.activity)
        self._connect()
        self.variants = RunVariants(self)  # Diagnose… and Apply and re-run
        self.results.show_environment(None)
        self._restore_settings()
        if self.background is not None:
            request_environment(self.background, self._on_environment)
        self._update_actions()
        self._update_title()
        if background:
            self.sessions.recover_later()

    def _lay_out(self) -> None:
        self.window_layout = WindowLayout(
            self, self.setup, [self.notice, self.banner], self.plots_slot, self.results
        )
        self.stale = StaleResults(self.setup, self.window_layout.stale_notice, self.results)
        self.statusBar().addWidget(self.status, 1)  # the text a button's hint covers a while
        self.statusBar().addPermanentWidget(self.status.indicator)  # what a run does: never covered

    def _connect(self) -> None:
        """Each part's signals to the window's slots: the parts never call each other."""
        commands = self.commands
        commands.open.triggered.connect(self.open_file_dialog)
        commands.export.triggered.connect(self.sessions.export_dialog)
        commands.log_to.triggered.connect(self.sessions.log_dialog)
        commands.run.triggered.connect(self.start_run)
        commands.stop.triggered.connect(self.stop_run)
        commands.sessions.triggered.connect(self.sessions.show_sessions)
        commands.sessions_folder.triggered.connect(self.open_sessions_folder)
        commands.quit.triggered.connect(self.close)
        for action in commands.examples_menu.actions():
            path = str(action.data())
            action.triggered.connect(lambda _=False, p=path: self.load_model(p))
        self.plots_slot.built.connect(self._on_plots_built)
        self.setup.validityChanged.connect(self._update_actions)
        self.setup.model.openRequested.connect(self.open_file_dialog)
        self.setup.model.fileChosen.connect(self._on_file_chosen)  # a recent file, from its list
        self.setup.model.inspected.connect(self._on_model_inspected)
        self.setup.model.inspectRequested.connect(lambda: self.consent.ask(then_run=False))
        self.setup.model.changed.connect(self._on_model_changed)
        self.setup.script.changed.connect(self._on_model_changed)
        self.consent.confirmed.connect(
            lambda path: self._set_recent(self.prefs.add_recent_file(path))
        )
        self.consent.runReady.connect(self.start_run)
        self.consent.runDropped.connect(self.status.label.setText)
        self.controller.eventsArrived.connect(self.display.on_events)
        self.controller.runEnded.connect(self.display.on_run_ended)
        self.sessions.sessionOpened.connect(self.display.opened)
        self.sessions.setupRestored.connect(self.setup.restore)
        self.sessions.problem.connect(lambda error: self.banner.add(error, []))
        self.sessions.message.connect(self.status.label.setText)
        self.sessions.exportingChanged.connect(lambda _exporting: self._update_actions())
        self.sessions.exportDone.connect(self.display.exported)
        self.sessions.loggingChanged.connect(lambda _logging: self._update_actions())
        self.sessions.logDone.connect(self.display.logged)
        self.sessions.recovered.connect(self.display.recovered)

    @property
    def plots(self) -> LivePlots | None:
        """The live plots; None until the window's first paint (see plots_slot.py)."""
        return self.plots_slot.plots

    @property
    def first_painted_at(self) -> float | None:
        return self.plots_slot.first_painted_at

    def ensure_plots(self) -> LivePlots:
        return self.plots_slot.ensure()

    def _on_plots_built(self) -> None:
        self.window_layout.on_plots_built()
        self.stale.follow(self.plots_slot.ensure())

    def _update_actions(self) -> None:
        running = self.controller.running
        commands = self.commands
        commands.run.setEnabled(not running and self.setup.is_valid())
        unasked = self.consent.needs_trust()
        confirm = self.scripts.confirm_text() or (
            INSPECT_AND_RUN_TEXT,
            "The model file came from a session: confirm that it may run, then it is "
            "inspected and run (Ctrl+R)",
        )
        commands.run.setText(confirm[0] if unasked else RUN_TEXT)
        if not (self.setup.is_valid() or running):
            commands.run.setToolTip(f"Cannot run: {self.setup.error()}")
        elif unasked:
            commands.run.setToolTip(confirm[1])
        else:
            commands.run.setToolTip("Run every arm at every batch size (Ctrl+R)")
        commands.stop.setEnabled(running)
        self.setup.setEnabled(not running)
        commands.open.setEnabled(not running)
        commands.examples_menu.setEnabled(not running)
        commands.recent_menu.setEnabled(not running)
        commands.export.setEnabled(not running and self.sessions.can_export())
        commands.log_to.setEnabled(not running and self.sessions.can_log())

    # -- model files ----------------------------------------------------------------------------
    def open_file_dialog(self) -> None:
        start = (
            str(Path(self.setup.model.current_path()).parent)
            if self.setup.model.current_path()
            else ""
        )
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open a model file, a training script or a saved session",
            start,
            "Models and sessions (*.py *.json *.jsonl);;Python files (*.py);;"
            "Sessions (session.json events.jsonl *.json *.jsonl)",
        )
        if path:
            self.open_path(path)

    def open_path(self, path: str) -> bool:
        """A .py file is a script or a model, as a drop guesses (the user's choice: trusted);
        session.json, events.jsonl or a session folder is a saved session, shown without
        running anything. False if it could not be opened (the banner says why)."""
        if path.endswith((".json", ".jsonl")) or Path(path).is_dir():
            return self.sessions.open_session(path)
        self.scripts.opened(path)
        return True

    def load_model(
        self, path: str, model: str | None = None, factory: str = "", shape: str = ""
    ) -> None:
        """A model file the user chose in this window: trusted, so inspected at once."""
        if self.controller.running:
            return
        self.setup.script.clear()  # a model file replaces a script
        self.setup.model.set_path(path, model, factory, shape)
        self._set_recent(self.prefs.add_recent_file(path))

    def _on_file_chosen(self, path: str) -> None:
        """A file picked in the setup's File list: inspected there as load_model would; here
        it becomes the most recent file, as a file opened with Open… does."""
        self._set_recent(self.prefs.add_recent_file(path))

    def _on_model_inspected(self) -> None:
        """The model loads now (fixed on disk, another factory, another file): an error
        saying it could not be loaded is no longer so."""
        inspection = self.setup.model.inspection
        loads = inspection is not None and inspection.answered and inspection.error is None
        if loads and not self.controller.running:
            self.banner.drop(MODEL_LOAD_ERRORS)

    def _on_model_changed(self) -> None:
        self._update_actions()
        self._update_title()

    def _update_title(self) -> None:
        saved = self.sessions.session if self.sessions.saved else None
        self.setWindowTitle(window_title(self.setup.source_path(), saved))

    def _set_recent(self, paths: list[str]) -> None:
        self.setup.model.set_recent(paths)
        recent = self.commands.recent_menu
        recent.clear()
        for p in paths:
            a = recent.addAction(p)
            a.triggered.connect(lambda _=False, p=p: self.load_model(p))
        recent.setEnabled(bool(paths) and not self.controller.running)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt API)
        if self.scripts.dropped_path(event, OPENABLE):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt API)
        """A session opens; a .py file may be a script or a model file: the window asks."""
        if path := self.scripts.dropped_path(event, OPENABLE):
            self.scripts.dropped(path) if path.endswith(".py") else self.open_path(path)
            event.acceptProposedAction()

    def open_sessions_folder(self) -> None:
        folder = sessions_dir()
        folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    # -- environment ----------------------------------------------------------------------------
    def _on_environment(self, probed: Environment | Failure) -> None:
        """The probe's answer (a worker's hello, typed), or why it failed."""
        if isinstance(probed, Failure):
            self.status.label.setText(f"Could not probe torch: {probed.message}")
            return
        self.environment = probed
        if self.pool is not None:  # after the start-up probes, so they do not compete
            self.pool.fill()
        self.setup.set_environment(probed)
        if not self.sessions.saved:  # a saved session shows the environment it ran in
            self.results.show_environment(probed)
        saved = self.prefs.setup().get("device")
        if isinstance(saved, str) and saved in probed.devices:
            self.setup.device.setCurrentText(saved)
        if not self.controller.running:
            self.status.label.setText(f"Ready · torch {probed.torch} · {', '.join(probed.devices)}")

    # -- runs -----------------------------------------------------------------------------------
    def start_run(self) -> None:
        if self.controller.running:
            return
        if self.consent.needs_trust():
            self.consent.ask(then_run=True)
            return
        try:
            config = self.variants.config(self.setup.config)
        except ConfigError as exc:  # the Run action is disabled then; keyboard races land here
            self.status.label.setText(f"Cannot run: {exc}")
            return
        self._save_settings()
        self.banner.clear()
        self.notice.clear()
        names = [a.name for a in config.run_arms]
        plots = self.ensure_plots()
        self.controller.start(config)
        self.sessions.on_run_started()
        self.display.show(SessionModel.from_json({}), None)
        assert self.controller.data is not None  # start() made it, even for a refused run
        plots.start(self.controller.data)
        self.results.logs.start(names)
        self.status.start(names, config, self.run_estimate.for_config(config))
        self.run_estimate.run_started()
        self._update_actions()

    def stop_run(self) -> None:
        if self.controller.running:
            self.status.label.setText("Stopping…")
            self.controller.stop()

    # -- settings and closing -------------------------------------------------------------------
    def _restore_settings(self) -> None:
        """The saved geometry, layout (driven by the View menu from then on) and setup."""
        geometry = self.prefs.geometry()
        if geometry is None or not self.restoreGeometry(geometry):
            self._default_size()
        self.window_layout.restore(self.prefs)
        self.window_layout.connect_view_menu(self.commands.show_setup, self.commands.reset_layout)
        # The last model is trusted again only if the user had trusted it (their own settings
        # file says so; a session's config never can, see SetupPanel.restore).
        last = self.prefs.setup()
        self.setup.restore(last, trust_model=last.get(MODEL_TRUSTED) is True)
        self._set_recent(self.prefs.recent_files())
        if not self.setup.model.current_path():
            self.setup.model.set_path(str(list_examples()[DEFAULT_EXAMPLE][0]))

    def _default_size(self) -> None:
        """1280x720, or 95% of a smaller screen (1366x768 laptops keep their task bar)."""
        screen = self.screen().availableGeometry() if self.screen() else None
        width, height = 1280, 720
        if screen is not None:
            width = min(width, int(screen.width() * 0.95))
            height = min(height, int(screen.height() * 0.92))
        self.resize(width, height)

    def _save_settings(self) -> None:
        self.prefs.set_setup(self.setup.state())
        self.prefs.set_geometry(self.saveGeometry())
        self.window_layout.save(self.prefs)
        self.prefs.sync()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        """Ask before stopping a run; stop it and wait: never leave a QThread or worker behind."""
        if not self.close_guard.may_close():
            event.ignore()
            return
        self.run_estimate.shutdown()
        if self.controller.running:
            self.status.label.setText("Stopping the run before closing…")
            self.controller.stop_and_wait()
        if self.plots is not None:
            self.plots.timer.stop()
        self.status.timer.stop()
        if self.background is not None:
            self.background.shutdown()
        if self.pool is not None:
            self.pool.close()
        self.sessions.shutdown()
        self._save_settings()
        super().closeEvent(event)
