"""Runs of the current setup with a twist: Diagnose (the backend ladder) and Apply and re-run.

Diagnose runs the backend ladder (`RunConfig.ladder`, profiler/analysis/ladder.py, `tcprof run
--ladder`) on the current model and batch sizes: eager, TorchDynamo capture, + AOTAutograd,
+ decompositions and the partitioner, + Inductor, each an arm, so the session shows which stage
costs speed, memory or accuracy; when it ends, Compile insight opens on its Ladder tab. Apply and
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
from typing import Protocol

from PySide6.QtCore import QObject

from tcprof.app.results.results_view import ResultsView
from tcprof.app.run.run_controller import RunController
from tcprof.app.run.status import RunStatus
from tcprof.app.setup.model_consent import ModelConsent
from tcprof.app.setup.setup_panel import SetupPanel
from tcprof.app.window.actions import WindowActions
from tcprof.profiler.analysis.ladder import ladder_arms
from tcprof.profiler.config import RunConfig
from tcprof.profiler.run.apply_advice import before_after


class VariantsWindow(Protocol):
    """What Diagnose needs of the main window (which holds a `RunVariants`): its parts, and
    its own Run. A protocol, so this module does not import the window that imports it."""

    commands: WindowActions
    results: ResultsView
    controller: RunController
    setup: SetupPanel
    consent: ModelConsent
    status: RunStatus

    def start_run(self) -> None: ...


Adjust = Callable[[RunConfig], RunConfig]


def ladder_config(config: RunConfig) -> RunConfig:
    """The setup with the ladder's stages as its arms (its other settings kept)."""
    return dataclasses.replace(
        config, arms=ladder_arms(None), ladder=True, apply_advice=False, control=False
    )


def apply_advice_config(config: RunConfig) -> RunConfig:
    """The setup, and after its rounds each fix tcprof can apply as an arm of its own."""
    return dataclasses.replace(config, apply_advice=True, ladder=False)


class RunVariants(QObject):
    """The Diagnose action and the Advice tab's Apply and re-run button, for one window."""

    def __init__(self, window: VariantsWindow) -> None:
        super().__init__(window)
        # Weakly: a strong reference back would keep a closed window (and its plots) alive
        # until the cyclic garbage collector ran.
        self._window = weakref.ref(window)
        self._pending: Adjust | None = None
        self._running: Adjust | None = None  # the variant of the run in progress
        commands = window.commands
        commands.diagnose.triggered.connect(lambda: self.start(ladder_config))
        commands.run.changed.connect(self._follow_run_action)
        window.results.insight.applyAdviceRequested.connect(lambda: self.start(apply_advice_config))
        window.controller.runEnded.connect(self._on_run_ended)
        self._follow_run_action()

    @property
    def window(self) -> VariantsWindow:
        window = self._window()
        assert window is not None, "RunVariants lives as the window's child"
        return window

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
            applied = before_after(self.window.controller.session_dict())
            self.window.results.setCurrentWidget(insight)
            if applied:
                insight.arm_picker.setCurrentText(applied[-1]["after"])


CONFIRM_FIRST = "Confirm the model file in the notice above, then press Diagnose or Apply again."
DIAGNOSE_TIP = (
    "Run the backend ladder on this model and batch sizes: eager, TorchDynamo capture, "
    "+ AOTAutograd, + decompositions and the partitioner, + Inductor; shows which stage costs "
    "speed, memory or accuracy (Ctrl+Shift+R)"
)
