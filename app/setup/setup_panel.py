"""The setup panel: everything a run needs, validated as it is typed.

It produces the engine's `RunConfig` and nothing else; the GUI adds no second way to run a
model. Invalid input is shown next to its field and reported through `validityChanged`, which
the window uses to enable Run; building the config never raises into Qt. `restore` puts a
setup back (the last one at start-up, or an opened session's config) with every RunConfig
field: those without a field here are carried and shown (see carried_settings.py). Its spin boxes and combo boxes
ignore the mouse wheel unless focused, so scrolling the panel changes nothing (wheel_guard.py).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.background import BackgroundCalls
from tcprof.app.common.field_names import in_app_terms
from tcprof.app.common.theme import error_colour
from tcprof.app.setup.arms_editor import ArmsEditor
from tcprof.app.setup.carried_settings import CarriedSettings
from tcprof.app.setup.debug_options import DebugOptionsBox
from tcprof.app.setup.distributed_options import DISTRIBUTED_KEYS, DistributedOptions
from tcprof.app.setup.host_field import HOST_KEYS, HostField
from tcprof.app.setup.loop_options import LOOP_KEYS, LoopOptions
from tcprof.app.setup.measurement_options import MEASUREMENT_KEYS, MeasurementOptions
from tcprof.app.setup.model_extras import EXTRA_KEYS, ModelExtras
from tcprof.app.setup.model_picker import ModelPicker
from tcprof.app.setup.wheel_guard import guard_wheel
from tcprof.profiler.config import (
    OPTIMIZERS,
    ArmSpec,
    ConfigError,
    DebugOptions,
    ModelSource,
    RunConfig,
    parse_batch_sizes,
)

DEFAULT_BATCH_SIZES = "32, 64"
WEIGHT_FORMATS = (("off", None), ("safetensors", "safetensors"), ("pt", "pt"))
WEIGHTS_TIP = (
    "RunConfig.save_weights: after the run, each arm's trained state_dict is saved to\n"
    "<session>/artifacts/<arm>/weights.safetensors (safetensors.torch.save_file) or .pt\n"
    "(torch.save(state_dict)), with torch.compile's '_orig_mod.' key prefix removed, and\n"
    "verified by model.load_state_dict(..., strict=True) on a fresh eager model.\n\n"
    "Why not torch.save(compiled_model)? It pickles the OptimizedModule wrapper: the file is\n"
    "tied to torch/dynamo internals and to your code's import paths, needs\n"
    "torch.load(weights_only=False) (it runs code), and its state_dict keys carry\n"
    "'_orig_mod.', so they do not load into the plain model. Share the plain state_dict."
)
PROFILE_TIP = (
    "RunConfig.profile_steps: after the measured steps of each batch size, a separate pass of\n"
    "this many steps under torch.profiler.profile(activities=[CPU (, CUDA)]): the top operators\n"
    "by self time (key_averages) go to the Profile tab and the report, the trace to a\n"
    "Chrome/Perfetto JSON (export_chrome_trace). Separate, so the reported timings are not\n"
    "skewed by the profiler. 0 = off."
)
# The RunConfig fields this panel has a field for; every other one is carried from a restored
# setup, except the artifacts folder, which each run gets anew.
PANEL_FIELDS = (
    "source",
    "arms",
    "batch_sizes",
    "warmup",
    "steps",
    "device",
    "optimizer",
    "lr",
    "seed",
    "debug",
    "save_weights",
    "profile_steps",
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
    if f.name not in PANEL_FIELDS and f.name != "artifacts_dir"
)


class SetupPanel(QWidget):
    validityChanged = Signal(bool)

    def __init__(self, background: BackgroundCalls | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = ModelPicker(background)
        model_box = QGroupBox("Model")
        self.extras = ModelExtras()
        model_layout = QVBoxLayout(model_box)
        model_layout.addWidget(self.model)
        model_layout.addWidget(self.extras)

        self.device = QComboBox()
        self.device.addItem("cpu")
        self.device.setToolTip(
            "torch.device for the model and batches. The list is what the installed torch\n"
            "can use (torch.cuda.is_available(), torch.backends.mps.is_available()),\n"
            "detected by a worker in the background."
        )
        self.arms = ArmsEditor()
        arms_box = QGroupBox("Arms (first = baseline)")
        QVBoxLayout(arms_box).addWidget(self.arms)

        self.batch_sizes = QLineEdit(DEFAULT_BATCH_SIZES)
        self.batch_sizes.setToolTip(
            "Batch sizes to measure, in order, e.g. 32, 64, 128: the leading dimension of the\n"
            "input batch. A new size may make a compiled arm recompile (dynamic=None)."
        )
        self.batch_error = QLabel()
        self.batch_error.setWordWrap(True)
        self.batch_error.setStyleSheet(f"color: {error_colour()}")
        self.batch_error.hide()
        self.warmup = QSpinBox()
        self.warmup.setRange(0, 100_000)
        self.warmup.setValue(5)
        self.warmup.setToolTip(
            "Untimed training steps after the first (compiling) step, before measuring."
        )
        self.steps = QSpinBox()
        self.steps.setRange(1, 10_000_000)
        self.steps.setValue(50)
        self.steps.setToolTip(
            "Measured steps per batch size: forward, loss, loss.backward(), optimizer.step(),\n"
            "optimizer.zero_grad(), timed with time.perf_counter_ns (CUDA: torch.cuda.Event)."
        )
        self.optimizer = QComboBox()
        self.optimizer.addItems(OPTIMIZERS)
        self.optimizer.setToolTip("torch.optim.SGD / torch.optim.Adam / torch.optim.AdamW")
        self.lr = QDoubleSpinBox()
        self.lr.setDecimals(6)
        self.lr.setRange(1e-6, 10.0)
        self.lr.setSingleStep(0.001)
        self.lr.setValue(0.01)
        self.lr.setToolTip("The optimizer's lr= argument")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setToolTip(
            "torch.manual_seed(seed) in every arm: identical initial weights and batches"
        )
        self.save_weights = QComboBox()
        for text, _value in WEIGHT_FORMATS:
            self.save_weights.addItem(text)
        self.save_weights.setToolTip(WEIGHTS_TIP)
        self.profile_steps = QSpinBox()
        self.profile_steps.setRange(0, 1000)
        self.profile_steps.setSpecialValueText("off")
        self.profile_steps.setToolTip(PROFILE_TIP)
        run_box = QGroupBox("Run")
        form = QFormLayout(run_box)
        form.addRow("Device", self.device)
        form.addRow("Batch sizes", self.batch_sizes)
        form.addRow("", self.batch_error)
        form.addRow("Warm-up", self.warmup)
        form.addRow("Steps", self.steps)
        form.addRow("Optimizer", self.optimizer)
        form.addRow("Learning rate", self.lr)
        form.addRow("Seed", self.seed)
        form.addRow("Save trained weights", self.save_weights)
        form.addRow("torch.profiler steps", self.profile_steps)
        self.host = HostField()
        form.addRow("Host", self.host)

        self.loop = LoopOptions()
        loop_box = QGroupBox("Loop")
        QVBoxLayout(loop_box).addWidget(self.loop)

        self.measurement = MeasurementOptions()
        measurement_box = QGroupBox("Measurement")
        QVBoxLayout(measurement_box).addWidget(self.measurement)

        self.debug = DebugOptionsBox()
        debug_box = QGroupBox("Debug")
        QVBoxLayout(debug_box).addWidget(self.debug)

        self.distributed = DistributedOptions()  # its settings reach the config with the carried
        self.carried = CarriedSettings(CARRIED_FIELDS, self.distributed)

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

        self.model.changed.connect(self.revalidate)
        self.arms.changed.connect(self.revalidate)
        self.batch_sizes.textChanged.connect(self.revalidate)
        for spin in (self.warmup, self.steps, self.seed, self.profile_steps):
            spin.valueChanged.connect(self.revalidate)
        self.measurement.changed.connect(self.revalidate)
        self.loop.changed.connect(self.revalidate)
        self.extras.changed.connect(self.revalidate)
        self.host.changed.connect(self.revalidate)
        self.carried.changed.connect(self.revalidate)
        self.debug.presetRequested.connect(self._add_debug_arm)
        self._valid: bool | None = None
        self.revalidate()
        guard_wheel(self)

    # -- environment ----------------------------------------------------------------------------
    def set_environment(self, env: dict[str, Any]) -> None:
        devices = env.get("devices") or ["cpu"]
        current = self.device.currentText()
        self.device.clear()
        self.device.addItems(devices)
        if current in devices:
            self.device.setCurrentText(current)
        if env.get("backends"):
            self.arms.set_backends(list(env["backends"]))

    def _add_debug_arm(self) -> None:
        arms = self.arms.arms()
        if not any(a.backend == "aot_eager" for a in arms):
            self.arms.set_arms([*arms, ArmSpec("aot_eager")])

    # -- validation -----------------------------------------------------------------------------
    def _batch_problem(self) -> str:
        try:
            parse_batch_sizes(self.batch_sizes.text())
        except ConfigError as exc:
            return str(exc)
        return ""

    def revalidate(self) -> None:
        batch = self._batch_problem()
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
        """The RunConfig for Run; ConfigError (with a readable message) if input is invalid."""
        model_problem = self.model.error()
        if model_problem:
            raise ConfigError(model_problem)
        return RunConfig(
            source=self.model.source(),
            arms=tuple(self.arms.arms()),
            batch_sizes=parse_batch_sizes(self.batch_sizes.text()),
            warmup=self.warmup.value(),
            steps=self.steps.value(),
            device=self.device.currentText() or "cpu",
            optimizer=self.optimizer.currentText(),
            lr=self.lr.value(),
            seed=self.seed.value(),
            debug=self.debug.options(),
            save_weights=self.weights_format(),
            profile_steps=self.profile_steps.value(),
            **self.measurement.options(),
            **self.loop.options(),
            **self.extras.options(),
            **self.host.options(),
            **self.carried.options(),
            # the run controller puts the run's session folder here
        )

    def weights_format(self) -> str | None:
        return dict(WEIGHT_FORMATS).get(self.save_weights.currentText())

    # -- persistence ----------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """What `restore` takes back: the fields (batch sizes as typed) and the carried ones,
        and whether the model was trusted (read back only from the user's own preferences)."""
        source = self.model.source()
        return {
            "source": source.to_dict(),
            MODEL_TRUSTED: self.model.trusted,
            "arms": [a.to_dict() for a in self.arms.arms()],
            "batch_sizes": self.batch_sizes.text(),
            "warmup": self.warmup.value(),
            "steps": self.steps.value(),
            "optimizer": self.optimizer.currentText(),
            "lr": self.lr.value(),
            "seed": self.seed.value(),
            "device": self.device.currentText(),
            "debug": self.debug.options().to_dict(),
            "save_weights": self.weights_format(),
            "profile_steps": self.profile_steps.value(),
            **self.measurement.options(),
            **self.loop.options(),
            **self.extras.options(),
            **self.host.options(),
            **self.carried.options(),
        }

    def restore(self, state: dict[str, Any], trust_model: bool = False) -> None:
        """Put a setup back: this panel's `state()`, or a session's config (RunConfig.to_dict()),
        so Run repeats it. Anything malformed is skipped, never raised; a model file that no
        longer exists leaves the current model in place. The model is shown as text, not
        inspected, unless trust_model (the caller's word, never the state's: a session file
        could claim anything)."""
        self._restore_source(state.get("source"), trust_model)
        self._restore_arms(state.get("arms"))
        batch_sizes = state.get("batch_sizes")
        if isinstance(batch_sizes, list):
            batch_sizes = ", ".join(str(b) for b in batch_sizes)
        if isinstance(batch_sizes, str):
            self.batch_sizes.setText(batch_sizes)
        for key, widget in (("warmup", self.warmup), ("steps", self.steps), ("seed", self.seed)):
            if _is_int(state.get(key)):
                widget.setValue(state[key])
        if _is_int(state.get("profile_steps")) and state["profile_steps"] >= 0:
            self.profile_steps.setValue(state["profile_steps"])
        for text, value in WEIGHT_FORMATS:
            if state.get("save_weights") == value:
                self.save_weights.setCurrentText(text)
        if state.get("optimizer") in OPTIMIZERS:
            self.optimizer.setCurrentText(state["optimizer"])
        if isinstance(state.get("lr"), (int, float)) and state["lr"] > 0:
            self.lr.setValue(float(state["lr"]))
        if isinstance(state.get("device"), str) and state["device"]:
            if self.device.findText(state["device"]) < 0:
                self.device.addItem(state["device"])
            self.device.setCurrentText(state["device"])
        self.measurement.set_options(state)
        self.loop.set_options(state)
        self.extras.set_options(state)
        self.host.set_options(state)
        self._restore_debug(state.get("debug"))
        self.carried.set_options(state, self._not_fitting(state))
        self.revalidate()

    def _restore_source(self, source: Any, trusted: bool) -> None:
        if not isinstance(source, dict) or not isinstance(source.get("path"), str):
            return
        try:
            source = ModelSource(**source)
        except TypeError:
            return
        texts = (source.model, source.factory, source.input_shape)
        if not all(t is None or isinstance(t, str) for t in texts):
            return
        if Path(source.path).is_file():
            self.model.set_path(
                source.path,
                source.model,
                source.factory or "",
                source.input_shape or "",
                trusted=trusted,
            )

    def _restore_arms(self, arms: Any) -> None:
        try:
            specs = [ArmSpec.from_dict(a) for a in arms or []]
        except (TypeError, ValueError, AttributeError):
            return
        if specs:
            self.arms.set_arms(specs)

    def _restore_debug(self, debug: Any) -> None:
        try:
            options = dict(debug or {})
            options["logs"] = tuple(options.get("logs") or ())
            self.debug.set_options(DebugOptions(**options))
        except (TypeError, ValueError):
            pass

    def _not_fitting(self, state: dict[str, Any]) -> list[str]:
        """Numbers a field clamped or rounded (say, lr=1e-07 below the field's 1e-06): named
        in the panel rather than run as something else without a word."""
        held = {
            "warmup": self.warmup.value(),
            "steps": self.steps.value(),
            "seed": self.seed.value(),
            "profile_steps": self.profile_steps.value(),
            "lr": self.lr.value(),
            **self.measurement.options(),
        }
        return [
            f"{key}={state[key]}"
            for key, value in held.items()
            if isinstance(state.get(key), (int, float))
            and not isinstance(state[key], bool)
            and not math.isclose(state[key], value or 0, rel_tol=1e-9)
        ]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
