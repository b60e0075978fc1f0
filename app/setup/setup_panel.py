"""The setup panel: everything a run needs, validated as it is typed.

It produces the engine's `RunConfig` and nothing else; the GUI adds no second way to run a
model. Invalid input is shown next to its field and reported through `validityChanged`, which
the window uses to enable Run; building the config never raises into Qt. The fields belong to
sub-editors, each with `options()` / `set_options()` and the RunConfig fields it holds (the
model, arms and Run box: core_options.py), so the config, the saved state and `restore` list
sub-editors, not fields. `restore` puts a setup back (the last one at start-up, or an opened
session's config) with every RunConfig field: those without a field here are carried and shown
(see carried_settings.py). Its spin boxes and combo boxes ignore the mouse wheel unless
focused, so scrolling the panel changes nothing (wheel_guard.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from tcprof.app.common.background import BackgroundCalls
from tcprof.app.common.field_names import in_app_terms
from tcprof.app.common.theme import error_colour
from tcprof.app.setup.carried_settings import CarriedSettings
from tcprof.app.setup.core_options import CORE_KEYS, CoreOptions, not_fitting
from tcprof.app.setup.distributed_options import DISTRIBUTED_KEYS, DistributedOptions
from tcprof.app.setup.host_field import HOST_KEYS, HostField
from tcprof.app.setup.loop_options import LOOP_KEYS, LoopOptions
from tcprof.app.setup.measurement_options import MEASUREMENT_KEYS, MeasurementOptions
from tcprof.app.setup.model_extras import EXTRA_KEYS, ModelExtras
from tcprof.app.setup.wheel_guard import guard_wheel
from tcprof.profiler.config import ConfigError, RunConfig

# The RunConfig fields this panel has a field for; every other one is carried from a restored
# setup, except the artifacts folder, which each run gets anew.
PANEL_FIELDS = (
    *CORE_KEYS,
    *MEASUREMENT_KEYS,
    *LOOP_KEYS,
    *EXTRA_KEYS,
    *DISTRIBUTED_KEYS,
    *HOST_KEYS,
)
# The key of `state()` that says the user trusted the model (see model_picker.py).
MODEL_TRUSTED = "model_trusted"
CARRIED_FIELDS = tuple(
    f.name
    for f in dataclasses.fields(RunConfig)
    if f.name not in PANEL_FIELDS and f.name not in ("artifacts_dir", "script")
)
# A session of a training script (`tcprof run -- python train.py`): the window shows its
# results, but runs no script yet, and never takes the script for a model file to inspect.
SCRIPT_SESSION = (
    "this session profiled a script ({command}); the window does not run scripts yet: run it "
    "again with tcprof run [options] -- {command}, or choose a model file"
)


class SetupPanel(QWidget):
    validityChanged = Signal(bool)

    def __init__(self, background: BackgroundCalls | None, parent: QWidget | None = None):
        super().__init__(parent)
        core = self.core = CoreOptions(background, self)
        # The core widgets keep their names on the panel, where the window and tests reach them.
        self.model, self.arms, self.debug = core.model, core.arms, core.debug
        self.device, self.batch_sizes = core.device, core.batch_sizes
        self.batch_error, self.warmup, self.steps = core.batch_error, core.warmup, core.steps
        self.optimizer, self.lr, self.seed = core.optimizer, core.lr, core.seed
        self.save_weights, self.profile_steps = core.save_weights, core.profile_steps

        model_box = QGroupBox("Model")
        self.extras = ModelExtras()
        model_layout = QVBoxLayout(model_box)
        model_layout.addWidget(self.model)
        model_layout.addWidget(self.extras)

        arms_box = QGroupBox("Arms (first = baseline)")
        QVBoxLayout(arms_box).addWidget(self.arms)

        run_box = QGroupBox("Run")
        form = QFormLayout(run_box)
        self.host = HostField()
        for label, field in (*core.run_rows(), ("Host", self.host)):
            form.addRow(label, field)

        self.loop = LoopOptions()
        loop_box = QGroupBox("Loop")
        QVBoxLayout(loop_box).addWidget(self.loop)

        self.measurement = MeasurementOptions()
        measurement_box = QGroupBox("Measurement")
        QVBoxLayout(measurement_box).addWidget(self.measurement)

        debug_box = QGroupBox("Debug")
        QVBoxLayout(debug_box).addWidget(self.debug)

        self.distributed = DistributedOptions()  # its settings reach the config with the carried
        self.carried = CarriedSettings(CARRIED_FIELDS, self.distributed)
        # The sub-editors whose options() are also what is saved (the core's are not), but the
        # carried settings, which take the others' misfits and so come last.
        self._editors = (self.measurement, self.loop, self.extras, self.host)

        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"color: {error_colour()}")
        self.problem.hide()

        layout = QVBoxLayout(self)
        for w in (
            model_box,
            arms_box,
            run_box,
            loop_box,
            measurement_box,
            self.distributed,
            self.carried,
            debug_box,
            self.problem,
        ):
            layout.addWidget(w)
        layout.addStretch(1)

        for editor in (core, *self._editors, self.carried):
            editor.changed.connect(self.revalidate)
        self._script: str | None = None  # a restored script session's command (see restore)
        self.model.inspected.connect(self._forget_script)
        self._valid: bool | None = None
        self.revalidate()
        guard_wheel(self)

    # -- environment ----------------------------------------------------------------------------
    def set_environment(self, env: dict[str, Any]) -> None:
        self.core.set_environment(env)

    # -- validation -----------------------------------------------------------------------------
    def revalidate(self) -> None:
        batch = self.core.batch_problem()
        self.batch_error.setText(batch)
        self.batch_error.setVisible(bool(batch))
        problem = self.error()
        shown = problem if problem and problem != batch and problem != self.model.error() else ""
        self.problem.setText(shown)
        self.problem.setVisible(bool(shown))
        valid = problem is None
        if valid != self._valid:
            self._valid = valid
            self.validityChanged.emit(valid)

    def is_valid(self) -> bool:
        return bool(self._valid)

    def error(self) -> str | None:
        """The first reason the run cannot start, or None; in the window's terms (a flag the
        engine names becomes the field to fix, see field_names.py)."""
        if self._script:
            return SCRIPT_SESSION.format(command=self._script)
        try:
            self.config()
        except ConfigError as exc:
            return in_app_terms(str(exc))
        return None

    def config(self) -> RunConfig:
        """The RunConfig for Run; ConfigError (with a readable message) if input is invalid.
        The run controller puts the run's session folder in it."""
        return RunConfig(**self.core.options(), **self._options())

    def _options(self) -> dict[str, Any]:
        """The RunConfig keyword arguments of all but the core fields, as they are saved too."""
        options: dict[str, Any] = {}
        for editor in (*self._editors, self.carried):
            options.update(editor.options())
        return options

    # -- a script's session ---------------------------------------------------------------------
    def _without_script(self, state: dict[str, Any]) -> dict[str, Any]:
        """A script session's setup without its script: its `source` is the script's file,
        which must never be inspected (imported) as a model file; Run stays off until a model
        file is chosen (SCRIPT_SESSION)."""
        script = state.get("script")
        if not isinstance(script, dict):
            self._script = None
            return state
        from tcprof.profiler.report.script_section import command_text

        try:
            self._script = command_text(script)
        except (KeyError, TypeError):
            self._script = "a script"
        return {k: v for k, v in state.items() if k not in ("source", "script", "batch_sizes")}

    def _forget_script(self) -> None:
        if self._script:
            self._script = None
            self.revalidate()

    # -- persistence ----------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """What `restore` takes back: the fields (batch sizes as typed) and the carried ones,
        and whether the model was trusted (read back only from the user's own preferences)."""
        return {**self.core.state(), MODEL_TRUSTED: self.model.trusted, **self._options()}

    def restore(self, state: dict[str, Any], trust_model: bool = False) -> None:
        """Put a setup back: this panel's `state()`, or a session's config (RunConfig.to_dict()),
        so Run repeats it. Anything malformed is skipped, never raised; a model file that no
        longer exists leaves the current model in place. The model is shown as text, not
        inspected, unless trust_model (the caller's word, never the state's: a session file
        could claim anything). Numbers a field clamped or rounded (say, lr=1e-07 below the
        field's 1e-06) are named in the panel rather than run as something else unsaid."""
        state = self._without_script(state)
        adjusted = self.core.set_options(state, trust_model)
        for editor in self._editors:
            editor.set_options(state)
        adjusted += not_fitting(state, self.measurement.options())
        self.carried.set_options(state, adjusted)
        self.revalidate()
