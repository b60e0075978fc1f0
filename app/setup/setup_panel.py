"""The setup panel: everything a run needs, validated as it is typed.

It produces the engine's `RunConfig` and nothing else; the GUI adds no second way to run a
model. Invalid input is shown next to its field and reported through `validityChanged`, which
the window uses to enable Run; building the config never raises into Qt. The fields belong to
sub-editors, each with `options()` (its typed record) / `set_options()` and the RunConfig
fields it holds (the model, arms and Run box: core_options.py); the records make the config and
the saved state in one place (setup_values.py), so the panel and `restore` list sub-editors,
not fields. `restore` puts a setup back (the last one at start-up, or an opened
session's config) with every RunConfig field: those without a field here are carried and shown
(see carried_settings.py). A training script (script_options.py) takes the model file's place
in the Model box; the fields it cannot take are disabled, saying why (script_mode.py), and one
from a session waits for the user's word before it runs. Its spin boxes and combo boxes ignore
the mouse wheel unless focused, so scrolling the panel changes nothing (wheel_guard.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QPushButton, QVBoxLayout, QWidget

from tcprof.app.common.background import BackgroundCalls
from tcprof.app.common.field_names import in_app_terms
from tcprof.app.common.theme import error_colour
from tcprof.app.setup.carried_settings import CarriedSettings
from tcprof.app.setup.core_options import CORE_KEYS, CoreFields, CoreOptions, not_fitting
from tcprof.app.setup.distributed_options import DISTRIBUTED_KEYS, DistributedOptions
from tcprof.app.setup.host_field import HOST_KEYS, HostField
from tcprof.app.setup.loop_options import LOOP_KEYS, LoopOptions
from tcprof.app.setup.measurement_options import MEASUREMENT_KEYS, MeasurementOptions
from tcprof.app.setup.model_extras import EXTRA_KEYS, ModelExtras
from tcprof.app.setup.narrow import wrapping
from tcprof.app.setup.saved_setup import Saved, SavedSetup
from tcprof.app.setup.script_mode import OWN_REASONS, ScriptMode
from tcprof.app.setup.script_options import ScriptOptions
from tcprof.app.setup.setup_values import SetupValues
from tcprof.app.setup.wheel_guard import guard_wheel
from tcprof.profiler.config import ConfigError, ModelSource, RunConfig
from tcprof.profiler.config.script import NOT_FOR_SCRIPTS, TORCHRUN
from tcprof.profiler.model.context import Environment
from tcprof.profiler.process.inspected import Inspection

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
BATCH_SIZES_TIP = (
    "Not used: the script's arguments have no {batch_size} to fill (write\n"
    "--batch_size={batch_size} in the Arguments field where the script takes it), or Sweep\n"
    "gives the phases' values."
)


class SetupPanel(QWidget):
    validityChanged = Signal(bool)
    openScriptRequested = Signal()  # the Model box's Open script… (the window's dialog)

    def __init__(self, background: BackgroundCalls | None, parent: QWidget | None = None):
        super().__init__(parent)
        core = self.core = CoreOptions(background, self)
        # The core widgets keep their names on the panel, where the window and tests reach them.
        self.model, self.arms, self.debug = core.model, core.arms, core.debug
        self.device, self.batch_sizes = core.device, core.batch_sizes
        self.batch_error, self.warmup, self.steps = core.batch_error, core.warmup, core.steps
        self.optimizer, self.lr, self.seed = core.optimizer, core.lr, core.seed
        self.save_weights, self.profile_steps = core.save_weights, core.profile_steps

        model_box = self.model_box = QGroupBox("Model")
        self.extras = ModelExtras()
        self.script = ScriptOptions()
        self.open_script = QPushButton("Open a training script instead…")
        self.open_script.setToolTip(
            "Profile your own training script, unchanged (File > Open script…, Ctrl+Shift+O)"
        )
        self.open_script.clicked.connect(self.openScriptRequested)
        model_layout = QVBoxLayout(model_box)
        for w in (self.model, self.extras, self.open_script, self.script):
            model_layout.addWidget(w)

        arms_box = QGroupBox("Arms (first = baseline)")
        QVBoxLayout(arms_box).addWidget(self.arms)

        run_box = QGroupBox("Run")
        form = wrapping(QFormLayout(run_box))
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

        self.distributed = DistributedOptions()
        self.carried = CarriedSettings(CARRIED_FIELDS)
        # The sub-editors a saved setup is put back into alike (the core, the Distributed group
        # and the carried settings, which take the others' misfits, are restored apart).
        self._editors = (self.measurement, self.loop, self.extras, self.host)

        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"color: {error_colour()}")
        self.problem.hide()

        layout = QVBoxLayout(self)
        for box in (
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
            layout.addWidget(box)
        layout.addStretch(1)

        for editor in (core, *self._editors, self.distributed, self.carried, self.script):
            editor.changed.connect(self.revalidate)
        self.script.modelRequested.connect(self.script.clear)
        self.model.fileChosen.connect(lambda _path: self.script.clear())
        not_for_scripts: dict[str, list[QWidget]] = {
            "loop": [self.loop.loop],
            "amp": [self.loop.amp],
            "channels_last": [self.loop.channels_last],
            "compile_optimizer": [self.loop.compile_optimizer],
            "weights": [self.extras.weights, self.extras.browse],
            "save_weights": [self.save_weights],
            "profile_steps": [self.profile_steps],
            "apply_advice": [self.measurement.apply_advice],
            "host": [self.host],
        }
        own: dict[str, list[QWidget]] = {"optimizer": [self.optimizer], "lr": [self.lr]}
        own.update(block_module=[self.extras.block_module], parallel=[self.distributed.parallel])
        fields = {k: v for k, v in not_for_scripts.items() if k in NOT_FOR_SCRIPTS}
        self.script_mode = ScriptMode({**fields, **{k: own[k] for k in OWN_REASONS}})
        self._batch_tip = self.batch_sizes.toolTip()
        self._valid: bool | None = None
        self.revalidate()
        guard_wheel(self)

    # -- environment ----------------------------------------------------------------------------
    def set_environment(self, env: object) -> None:
        """The devices and backends the installed torch has: a worker's hello, as it came."""
        self.core.set_environment(env if isinstance(env, Environment) else Environment.of(env))

    # -- validation -----------------------------------------------------------------------------
    def revalidate(self) -> None:
        self._show_mode()
        batch = self.core.batch_problem() if self.batch_sizes.isEnabled() else ""
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
        try:
            self.config()
        except ConfigError as exc:
            return in_app_terms(str(exc))
        return None

    def config(self) -> RunConfig:
        """The RunConfig for Run; ConfigError (with a readable message) if input is invalid.
        The run controller puts the run's session folder in it. A script's run is built as
        `tcprof run [options] -- python SCRIPT ARGS` builds it (script_options.py)."""
        if not self.script.active():
            core, batch_sizes = self.core.checked()
            return self.values(core).config(core.source, batch_sizes, auto=self._auto())
        values = self.values(self.core.held())
        script, phases = self.script.run_fields(values.core.batch_sizes)
        # the fields disabled, saying why: the run takes their defaults
        values = values.for_script(self.script_mode.disabled())
        source = ModelSource(path=script.path)
        return values.config(source, phases, script, auto=self._auto())

    def values(self, core: CoreFields | None = None) -> SetupValues:
        """The fields as they are (`core`: the core's, when already read)."""
        return SetupValues(
            core=core if core is not None else self.core.held(),
            measurement=self.measurement.options(),
            loop=self.loop.options(),
            extras=self.extras.options(),
            host=self.host.host(),
            distributed=self.distributed.options(),
            carried=self.carried.options(),
        )

    def _auto(self) -> bool:
        """Replicates at auto: the run stops when settled (`SetupValues.config`)."""
        return self.measurement.rounds() is None

    def inspection(self) -> Inspection | None:
        """The model's inspection, whose step probe prices the run estimate; none for a script
        (never inspected)."""
        return None if self.script.active() else self.model.inspection

    def source_path(self) -> str:
        """The file a run runs: the script, or the model file."""
        return self.script.path() if self.script.active() else self.model.current_path()

    def _show_mode(self) -> None:
        """The Model box holds the model file's fields or the script's; the fields a script
        cannot take are disabled while it is chosen, and so is Batch sizes when nothing in the
        arguments takes it."""
        active = self.script.active()
        self.model_box.setTitle("Training script" if active else "Model")
        for w in (self.model, self.extras, self.open_script):
            w.setVisible(not active)
        self.script_mode.apply(active)
        uses = not active or self.script.uses_batch_sizes()
        self.batch_sizes.setEnabled(uses)
        self.batch_sizes.setToolTip(self._batch_tip if uses else BATCH_SIZES_TIP)

    # -- a script's session ---------------------------------------------------------------------
    def _take_script(self, saved: SavedSetup, trusted: bool) -> SavedSetup:
        """A setup with a script (a session's config, or the panel's own state): the script
        goes to the Script box (a session's is not trusted: it runs after the user's word),
        the rest to the fields; its `source` (the script's file) never reaches the model field,
        which must never inspect (import) a script."""
        script = saved.script.value
        if script is None:
            return saved
        self.script.set_script(script.path, script, trusted=trusted)
        source = saved.source.value
        if source is not None and source.path == script.path:
            saved = dataclasses.replace(saved, source=Saved())
        if not self.script.uses_batch_sizes():
            saved = dataclasses.replace(saved, batch_sizes=Saved())  # a sweep's, or the phase's 1
        if saved.parallel.value == TORCHRUN:  # what a script with several processes runs under
            saved = dataclasses.replace(saved, parallel=Saved())
        return saved

    # -- persistence ----------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """What `restore` takes back: the fields (batch sizes as typed) and the carried ones,
        and whether the model was trusted (read back only from the user's own preferences)."""
        state = {MODEL_TRUSTED: self.model.trusted, **self.values().to_json()}
        if self.script.active():
            state.update(script=self.script.state(), **{MODEL_TRUSTED: self.script.trusted})
            state["model_file_trusted"] = self.model.trusted
        return state

    def restore(self, state: dict[str, Any], trust_model: bool = False) -> None:
        """Put a setup back: this panel's `state()`, or a session's config (RunConfig.to_dict()),
        so Run repeats it. Anything malformed is skipped, never raised; a model file that no
        longer exists leaves the current model in place. The model is shown as text, not
        inspected, unless trust_model (the caller's word, never the state's: a session file
        could claim anything). Numbers a field clamped or rounded (say, lr=1e-07 below the
        field's 1e-06) are named in the panel rather than run as something else unsaid."""
        saved = SavedSetup.of(state)
        if saved.script.value is None:
            self.script.clear()
        saved = self._take_script(saved, trust_model)
        if trust_model and saved.model_file_trusted.given:  # the user's own, with a script
            trust_model = saved.model_file_trusted.value is True
        adjusted = self.core.set_options(saved, trust_model)
        for editor in self._editors:
            editor.set_options(saved)
        held = self.measurement
        adjusted += not_fitting(
            # a stop_early run's replicates is its last look: auto holds it
            *([] if saved.stop_early.value else [("replicates", saved.replicates, held.rounds())]),
            ("budget_s", saved.budget_s, held.budget.value() or None),
            ("threads", saved.threads, held.threads.value() or None),
            ("stall_timeout_s", saved.stall_timeout_s, held.stall_timeout.value() or None),
        )
        adjusted += self.distributed.set_options(saved)
        self.carried.set_options(state, adjusted)
        self.revalidate()
