"""Runs of the current setup with a twist: Diagnose (the backend ladder) and Apply and re-run.

Diagnose runs the backend ladder (`RunConfig.ladder`, profiler/analysis/ladder.py, `tcprof run
--ladder`) on the current model and batch sizes: eager, TorchDynamo capture, + AOTAutograd,
+ decompositions and the partitioner, + Inductor, each an arm, so the session shows which stage
costs speed, memory or accuracy; when it ends, Compile insight opens on its Ladder tab. Five
arms take minutes, so Diagnose… asks first: a dialog lists the stages it will run and how long
the run should take (the window's own run estimate, app/run/estimate.py), and only Start runs
it. Apply and
re-run runs the same setup with `apply_advice=True` (profiler/run/apply_advice.py): each fix tcprof
can apply itself becomes a derived arm beside the one advised, before and after in one session.

Both go through the window's own Run (`start_run`), so the saved settings and the plots behave
as for any run: `RunVariants.config` is what start_run asks for the config, and it applies the
variant only during the call that asked for it, so no later Run inherits it. A model file that
came from a session is not run unasked: the notice asks to inspect it first, and the user
presses Diagnose (or Apply) again once it is confirmed.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.table_text import table_text
from tcprof.app.results.results_view import ResultsView
from tcprof.app.run.estimate import RunEstimate
from tcprof.app.run.run_controller import RunController
from tcprof.app.run.status import RunStatus
from tcprof.app.setup.model_consent import ModelConsent
from tcprof.app.setup.setup_panel import SetupPanel
from tcprof.app.window.actions import WindowActions
from tcprof.profiler.analysis.ladder import STAGE_TEXT, ladder_arms
from tcprof.profiler.config import ConfigError, RunConfig
from tcprof.profiler.protocol import units
from tcprof.profiler.run.apply_advice import before_after
from tcprof.profiler.run.estimate import Estimate


class VariantsWindow(Protocol):
    """What Diagnose needs of the main window (which holds a `RunVariants`): its parts, and
    its own Run. A protocol, so this module does not import the window that imports it."""

    commands: WindowActions
    results: ResultsView
    controller: RunController
    setup: SetupPanel
    consent: ModelConsent
    status: RunStatus
    run_estimate: RunEstimate

    def start_run(self) -> None: ...


Adjust = Callable[[RunConfig], RunConfig]


def ladder_config(config: RunConfig) -> RunConfig:
    """The setup with the ladder's stages as its arms (its other settings kept)."""
    return dataclasses.replace(
        config, arms=ladder_arms(None), ladder=True, apply_advice=False, control=None
    )


def apply_advice_config(config: RunConfig) -> RunConfig:
    """The setup, and after its rounds each fix tcprof can apply as an arm of its own."""
    return dataclasses.replace(config, apply_advice=True, ladder=False)


BASELINE_TEXT = "the baseline: not compiled"


class DiagnoseDialog(QDialog):
    """Diagnose's question: the stages it will run, each an arm, how long it should take, and
    Start or Cancel (Cancel, Escape or closing it runs nothing)."""

    def __init__(self, config: RunConfig, estimate: Estimate, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Diagnose: the backend ladder")
        self.setModal(True)
        source = config.source
        model = source.factory or source.model
        name = Path(source.path).name
        what = f"{model} ({name})" if model else name
        sizes = ", ".join(str(b) for b in config.batch_sizes)
        arms = config.run_arms
        self.intro = QLabel(
            f"Diagnose runs the backend ladder on {what} at batch size{'s' if len(config.batch_sizes) > 1 else ''} "
            f"{sizes}: {len(arms)} arms, one per stage of torch.compile, each adding one step "
            "of the compiler to the stage before, so the session shows which stage costs speed, "
            "memory or accuracy. Each arm runs as the setup says: "
            f"{_rounds(config.replicates)}, {config.warmup} warm-up and {config.steps} measured "
            f"steps per batch size{', then the accuracy check' if config.accuracy else ''}."
        )
        self.intro.setWordWrap(True)
        per_arm = _seconds_per_arm(estimate, len(arms))
        self.stages = QTableWidget(len(arms), 3)
        self.stages.setHorizontalHeaderLabels(["stage (arm)", "what it adds", "about"])
        self.stages.verticalHeader().setVisible(False)
        self.stages.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.stages.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.stages.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for r, arm in enumerate(arms):
            adds = BASELINE_TEXT if r == 0 else STAGE_TEXT.get(arm.backend, arm.backend)
            cells = [arm.name, adds, units.duration(per_arm[r])]
            for c, text in enumerate(cells):
                self.stages.setItem(r, c, QTableWidgetItem(text))
        header = self.stages.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        rows = sum(self.stages.rowHeight(r) for r in range(len(arms)))
        self.stages.setFixedHeight(rows + header.sizeHint().height() + 2 * self.stages.frameWidth())
        self.estimate = QLabel(f"<b>Estimated duration: {estimate.text()}</b>")
        self.estimate.setWordWrap(True)
        self.estimate.setToolTip(
            "The window's run estimate (as beside Run): each arm's worker start, first step "
            "(its compile), warm-up and measured blocks per batch size and round, and the "
            "accuracy check; priced from earlier runs of this model where there are some"
        )
        self.stop_note = QLabel("Stop ends the run at any time; what was measured is kept.")
        buttons = QDialogButtonBox()
        self.start_button = QPushButton("Start")
        self.start_button.setDefault(True)
        buttons.addButton(self.start_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.stages)
        layout.addWidget(self.estimate)
        layout.addWidget(self.stop_note)
        layout.addWidget(buttons)
        self.resize(640, self.sizeHint().height())

    def stage_rows(self) -> list[list[str]]:
        return table_text(self.stages)


def _rounds(replicates: int) -> str:
    return "1 round" if replicates == 1 else f"{replicates} rounds"


def _seconds_per_arm(estimate: Estimate, arms: int) -> list[float]:
    """Each arm's share of the estimate: its priced units (worker starts, first steps,
    blocks, the accuracy check)."""
    seconds = [0.0] * arms
    for unit in estimate.units:
        if 0 <= unit.arm < arms:
            seconds[unit.arm] += unit.seconds
    return seconds


class RunVariants(QObject):
    """The Diagnose action and the Advice tab's Apply and re-run button, for one window."""

    def __init__(self, window: VariantsWindow) -> None:
        assert isinstance(window, QObject), "the main window, whose child this is"
        super().__init__(window)
        # Weakly: a strong reference back would keep a closed window (and its plots) alive
        # until the cyclic garbage collector ran.
        self._window = weakref.ref(window)
        self._pending: Adjust | None = None
        self._running: Adjust | None = None  # the variant of the run in progress
        self.dialog: DiagnoseDialog | None = None  # Diagnose's question, while it is asked
        commands = window.commands
        commands.diagnose.triggered.connect(self.ask_diagnose)
        commands.run.changed.connect(self._follow_run_action)
        window.results.insight.applyAdviceRequested.connect(lambda: self.start(apply_advice_config))
        window.controller.runEnded.connect(self._on_run_ended)
        self._follow_run_action()

    @property
    def window(self) -> VariantsWindow:
        window = self._window()
        assert window is not None, "RunVariants lives as the window's child"
        return window

    def ask_diagnose(self) -> DiagnoseDialog | None:
        """Diagnose…: show the stages and the estimate; Start runs the ladder. A model file
        from a session is confirmed first (no question, no run, until then)."""
        window = self.window
        if window.controller.running or self.dialog is not None:
            return self.dialog
        if window.setup.model.needs_trust():
            self.start(ladder_config)  # asks to confirm the file; runs nothing
            return None
        try:
            config = ladder_config(window.setup.config())
        except ConfigError as exc:  # Diagnose is disabled then; keyboard races land here
            window.status.label.setText(f"Cannot run: {exc}")
            return None
        parent = window if isinstance(window, QWidget) else None  # the main window: a QWidget
        dialog = DiagnoseDialog(config, window.run_estimate.for_config(config), parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.start(ladder_config))
        dialog.finished.connect(self._forget_dialog)
        self.dialog = dialog
        dialog.open()
        return dialog

    def _forget_dialog(self) -> None:
        self.dialog = None

    def start(self, adjust: Adjust) -> None:
        """Run the current setup through `adjust`, or ask to confirm the model file first."""
        window = self.window
        if window.controller.running:
            return
        if window.setup.model.needs_trust():
            window.consent.ask(then_run=False)
            window.status.label.setText(CONFIRM_FIRST)
            return
        self._pending = adjust
        try:
            window.start_run()
        finally:
            self._pending = None

    def config(self, make: Callable[[], RunConfig]) -> RunConfig:
        """The run's config: `make()`, through the variant asked for, if any (used once)."""
        adjust, self._pending = self._pending, None
        config = make()
        self._running = adjust
        return adjust(config) if adjust is not None else config

    def _follow_run_action(self) -> None:
        """Diagnose and Apply are runs: enabled when Run is, with Run's reason when not."""
        run, diagnose = self.window.commands.run, self.window.commands.diagnose
        diagnose.setEnabled(run.isEnabled())
        self.window.results.insight.apply_advice.setEnabled(run.isEnabled())
        blocked = not run.isEnabled() and not self.window.controller.running  # Run says why
        diagnose.setToolTip(run.toolTip() if blocked else DIAGNOSE_TIP)

    def _on_run_ended(self, _status: str) -> None:
        """A variant's result is in Compile insight: the ladder, or the fixed arm's recompiles
        beside the arm advised."""
        variant, self._running = self._running, None
        insight = self.window.results.insight
        if variant is ladder_config:
            self.window.results.setCurrentWidget(insight)
            insight.show_ladder()
        elif variant is apply_advice_config:
            applied = before_after(self.window.controller.session().to_dict())
            self.window.results.setCurrentWidget(insight)
            if applied:
                insight.arm_picker.setCurrentText(applied[-1].after)


CONFIRM_FIRST = "Confirm the model file in the notice above, then press Diagnose or Apply again."
DIAGNOSE_TIP = (
    "Run the backend ladder on this model and batch sizes: eager, TorchDynamo capture, "
    "+ AOTAutograd, + decompositions and the partitioner, + Inductor; shows which stage costs "
    "speed, memory or accuracy. Asks first, with the stages and how long it should take "
    "(Ctrl+Shift+R)"
)
