"""The main window: setup on the left, live plots and results on the right, run status below.

It wires the parts together and owns the conventions (actions and shortcuts, drag and drop,
recent files, persisted settings, closing safely mid-run); the parts themselves live in their
own modules. Nothing here imports torch: models are inspected, probed and run by worker
processes through the engine.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import (
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.background import BackgroundCalls
from app.environment_probe import request_environment
from app.error_banner import ErrorBanner
from app.notice_bar import NoticeBar
from app.results_view import ResultsView
from app.run_controller import RunController
from app.run_status import RunStatus
from app.session_actions import SessionActions
from app.settings import Preferences
from app.setup_panel import SetupPanel
from app.window_actions import make_actions
from profiler.config import ConfigError
from profiler.examples import list_examples
from profiler.paths import sessions_dir

TITLE = "Torch Compile Profiler"
OPENABLE = (".py", ".json", ".jsonl")


class _FirstPaint(QLabel):
    """The plots' placeholder: tells the window when it has first been painted."""

    def __init__(self, text: str, on_paint: Callable[[], None]) -> None:
        super().__init__(text)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._on_paint = on_paint

    def paintEvent(self, event: Any) -> None:  # noqa: N802 (Qt API)
        super().paintEvent(event)
        self._on_paint()


DEFAULT_EXAMPLE = "simple"


class MainWindow(QMainWindow):
    def __init__(
        self,
        background: bool = True,
        runner_factory: Callable[..., Any] | None = None,
        parent: QWidget | None = None,
        prewarm: bool = False,
    ) -> None:
        """background=False skips the start-up worker calls (environment probe, model
        inspection): for tests that only exercise the window itself. prewarm keeps two worker
        processes warmed up (torch and TorchDynamo imported) so that Run measures at once."""
        super().__init__(parent)
        self.base_title = TITLE
        self.setWindowTitle(TITLE)
        self.setAcceptDrops(True)
        self.prefs = Preferences()
        self.background = BackgroundCalls(self) if background else None
        self.pool: Any = None
        if prewarm and runner_factory is None:
            from profiler.runner import Runner
            from profiler.worker_pool import WorkerPool

            self.pool = WorkerPool(size=2)
            runner_factory = functools.partial(Runner, pool=self.pool)
        self.controller = RunController(runner_factory, self)
        self.environment: dict[str, Any] | None = None

        self.setup = SetupPanel(self.background)
        scroll = QScrollArea()
        scroll.setWidget(self.setup)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(340)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.banner = ErrorBanner()
        self.notice = NoticeBar()
        # pyqtgraph takes ~0.6 s to import: the plots are built just after the window shows.
        self.plots: Any = None
        self._plots_placeholder = _FirstPaint("preparing plots…", self._on_first_paint)
        self.results = ResultsView()
        right = self._right_split = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.notice)
        top_layout.addWidget(self.banner)
        top_layout.addWidget(self._plots_placeholder, 1)
        self._top_layout = top_layout
        right.addWidget(top)
        right.addWidget(self.results)
        right.setStretchFactor(0, 5)
        right.setStretchFactor(1, 2)
        right.setSizes([500, 200])
        # The tables' size hints would claim ~330 px and squash the plots on a 1366x768 screen.
        self.results.setMinimumHeight(150)
        self._plots_placeholder.setMinimumHeight(240)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(scroll)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([350, 900])
        self.setCentralWidget(split)
        self.status = RunStatus()
        self.statusBar().addWidget(self.status, 1)
        self.sessions = SessionActions(self)

        self._make_actions()
        self.setup.validityChanged.connect(self._update_actions)
        self.setup.model.openRequested.connect(self.open_file_dialog)
        self.controller.eventsArrived.connect(self._on_events)
        self.controller.runEnded.connect(self._on_run_ended)
        self.results.show_environment(None)
        self._restore_settings()
        if self.background is not None:
            request_environment(self.background, self._on_environment)
        self._update_actions()
        self.first_painted_at: float | None = None
        if background:
            self.sessions.recover_later()

    def _on_first_paint(self) -> None:
        """The window has been painted once: now pay for pyqtgraph."""
        if self.first_painted_at is None:
            self.first_painted_at = time.time()
            QTimer.singleShot(0, self.ensure_plots)

    def ensure_plots(self) -> None:
        """Build the live plots (and import pyqtgraph) once, after the first paint."""
        if self.plots is not None:
            return
        from app.live_plots import LivePlots

        self.plots = LivePlots()
        self.plots.setMinimumHeight(240)
        self._top_layout.replaceWidget(self._plots_placeholder, self.plots)
        self._plots_placeholder.deleteLater()
        total = sum(self._right_split.sizes())
        if total > 0:  # the plots get about 70% of the height, the tables the rest
            self._right_split.setSizes([int(total * 0.7), total - int(total * 0.7)])

    # -- actions --------------------------------------------------------------------------------
    def _make_actions(self) -> None:
        make_actions(self)

    def _update_actions(self) -> None:
        running = self.controller.running
        self.run_action.setEnabled(not running and self.setup.is_valid())
        self.run_action.setToolTip(
            "Run every arm at every batch size (Ctrl+R)"
            if self.setup.is_valid() or running
            else f"Cannot run: {self.setup.error()}"
        )
        self.stop_action.setEnabled(running)
        self.setup.setEnabled(not running)
        self.open_action.setEnabled(not running)
        self.examples_menu.setEnabled(not running)
        self.recent_menu.setEnabled(not running)
        self.export_action.setEnabled(not running and self.sessions.can_export())

    # -- model files ----------------------------------------------------------------------------
    def open_file_dialog(self) -> None:
        start = (
            str(Path(self.setup.model.current_path()).parent)
            if self.setup.model.current_path()
            else ""
        )
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open a model file or a saved session",
            start,
            "Models and sessions (*.py *.json *.jsonl);;Python files (*.py);;"
            "Sessions (session.json events.jsonl *.json *.jsonl)",
        )
        if path:
            self.open_path(path)

    def open_path(self, path: str) -> None:
        """A .py file is a model; session.json or events.jsonl is a saved session."""
        if path.endswith((".json", ".jsonl")):
            self.sessions.open_session(path)
        else:
            self.load_model(path)

    def load_model(
        self, path: str, model: str | None = None, factory: str = "", shape: str = ""
    ) -> None:
        if self.controller.running:
            return
        self.setup.model.set_path(path, model, factory, shape)
        self._set_recent(self.prefs.add_recent_file(path))

    def _set_recent(self, paths: list[str]) -> None:
        self.setup.model.set_recent(paths)
        self.recent_menu.clear()
        for p in paths:
            a = self.recent_menu.addAction(p)
            a.triggered.connect(lambda _=False, p=p: self.load_model(p))
        self.recent_menu.setEnabled(bool(paths) and not self.controller.running)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt API)
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile() and urls[0].toLocalFile().endswith(OPENABLE):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt API)
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            self.open_path(urls[0].toLocalFile())
            event.acceptProposedAction()

    def open_sessions_folder(self) -> None:
        folder = sessions_dir()
        folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    # -- environment ----------------------------------------------------------------------------
    def _on_environment(self, env: dict[str, Any]) -> None:
        if "error" in env:
            self.status.label.setText(f"Could not probe torch: {env['error'].get('message')}")
            return
        self.environment = env
        if self.pool is not None:  # after the start-up probes, so they do not compete
            self.pool.fill()
        self.setup.set_environment(env)
        self.results.show_environment(env)
        saved = self.prefs.setup().get("device")
        if saved in (env.get("devices") or []):
            self.setup.device.setCurrentText(saved)
        if not self.controller.running:
            self.status.label.setText(
                f"Ready · torch {env.get('torch')} · {', '.join(env.get('devices') or [])}"
            )

    # -- runs -----------------------------------------------------------------------------------
    def start_run(self) -> None:
        if self.controller.running:
            return
        try:
            config = self.setup.config()
        except ConfigError as exc:  # the Run action is disabled then; keyboard races land here
            self.status.label.setText(f"Cannot run: {exc}")
            return
        self._save_settings()
        self.banner.clear()
        self.notice.clear()
        self.sessions.on_run_started()
        names = [a.name for a in config.run_arms]
        self.ensure_plots()
        self.controller.start(config)
        self.plots.start(self.controller.data)
        self.results.logs.start(names)
        self.results.show_summary({"arms": []})
        self.status.start(names, config)
        self._update_actions()

    def stop_run(self) -> None:
        if self.controller.running:
            self.status.label.setText("Stopping…")
            self.controller.stop()

    def _on_events(self, events: list[dict[str, Any]]) -> None:
        names = [a.name for a in self.controller.config.run_arms] if self.controller.config else []
        self.results.logs.add_events(events)
        self.status.update_from(events)
        refresh_summary = False
        for e in events:
            kind = e.get("type")
            if kind == "error":
                self.banner.add(e, names)
            elif kind == "hello" and self.environment is None:
                self.results.show_environment(e)
            elif kind == "bs_done":
                refresh_summary = True
        if refresh_summary:
            self.results.show_summary(self.controller.session_dict())

    def _on_run_ended(self, status: str) -> None:
        if self.plots is not None:
            self.plots.stop()
        if self.pool is not None:
            self.pool.fill()
        session = self.controller.session_dict()
        self.results.show_summary(session)
        env = self.controller.environment
        if env and self.environment is None:
            self.results.show_environment(env)
        where = f" · saved in {self.controller.session_dir}" if self.controller.session_dir else ""
        self.status.finish(f"Run {status.replace('_', ' ')}{where}")
        if self.controller.save_error:
            self.banner.add({"kind": "save", "message": self.controller.save_error}, [])
        self.sessions.on_run_ended()
        self._update_actions()

    # -- settings and closing -------------------------------------------------------------------
    def _restore_settings(self) -> None:
        geometry = self.prefs.geometry()
        if geometry is None or not self.restoreGeometry(geometry):
            self._default_size()
        state = self.prefs.setup()
        self.setup.restore(state)
        self._set_recent(self.prefs.recent_files())
        source = state.get("source") or {}
        path = source.get("path")
        if isinstance(path, str) and Path(path).is_file():
            self.setup.model.set_path(
                path,
                source.get("model"),
                source.get("factory") or "",
                source.get("input_shape") or "",
            )
        else:
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
        self.prefs.sync()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        """Stop a run first and wait for it; never leave a QThread or worker process behind."""
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
