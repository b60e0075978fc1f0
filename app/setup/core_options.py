"""The setup panel's core fields: the model, the arms, the Run box's fields and the Debug box.

A sub-editor like the others (`CORE_KEYS`, `held()`, `set_options()`), but its widgets sit in
four of the panel's boxes, so it is an object that owns them and the panel lays them out. And
what a run takes differs from what is saved: `checked()` parses the batch sizes (ConfigError
for those or for the model) while `CoreFields` keeps them as typed, so that a restored setup
shows what the user wrote.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLabel, QLineEdit, QSpinBox, QWidget

from tcprof.app.common.background import BackgroundCalls
from tcprof.app.common.theme import error_colour
from tcprof.app.setup.arms_editor import ArmsEditor
from tcprof.app.setup.bounds import hold_to_bound
from tcprof.app.setup.debug_options import DebugOptionsBox
from tcprof.app.setup.model_picker import ModelPicker
from tcprof.app.setup.saved_setup import Saved, SavedSetup
from tcprof.profiler.config import DEFAULT_BATCH_SIZES as BATCH_SIZES
from tcprof.profiler.config import (
    MIN_BLOCK_MS,
    OPTIMIZERS,
    ArmSpec,
    ConfigError,
    DebugOptions,
    ModelSource,
    parse_batch_sizes,
)
from tcprof.profiler.model.context import Environment

# the command line's and tcprof.run's default, declared once in RunConfig: the window ran the
# built-in example at two batch sizes where `tcprof run --example simple` ran one (issue 42)
DEFAULT_BATCH_SIZES = ", ".join(str(b) for b in BATCH_SIZES)
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
STEPS_TIP = (
    "RunConfig.steps (--steps): the measured steps asked for per batch size and process:\n"
    "forward, loss, loss.backward(), optimizer.step(), optimizer.zero_grad(), timed with\n"
    "time.perf_counter_ns (CUDA: torch.cuda.Event).\n\n"
    "They run as timed blocks (RunConfig.blocks), and each block runs at least the minimum\n"
    f"block time (RunConfig.min_block_ms, --min-block-ms; {MIN_BLOCK_MS:g} ms by default), so\n"
    "that short steps are timed over a span a clock measures well: a block of fast steps goes\n"
    "on past its share until it has lasted that long, and a process may measure more steps\n"
    "than asked here. The reports (report.html, report.md) and tcprof run's summary give\n"
    'the steps each process actually measured ("steps: … measured 5,744–8,292 per process").'
)
PROFILE_TIP = (
    "RunConfig.profile_steps: after the measured steps of each batch size, a separate pass of\n"
    "this many steps under torch.profiler.profile(activities=[CPU (, CUDA)]): the top operators\n"
    "by self time (key_averages) go to the Profile tab and the report, the trace to a\n"
    "Chrome/Perfetto JSON (export_chrome_trace). Separate, so the reported timings are not\n"
    "skewed by the profiler. 0 = off."
)


@dataclass(frozen=True)
class CoreFields:
    """What the core fields hold: RunConfig's fields in its types, but the batch sizes as typed
    (a restored setup shows what the user wrote)."""

    source: ModelSource
    arms: tuple[ArmSpec, ...]
    batch_sizes: str
    warmup: int
    steps: int
    optimizer: str
    lr: float
    seed: int
    device: str
    debug: DebugOptions
    save_weights: str | None
    profile_steps: int

    def to_json(self) -> dict[str, Any]:
        """As the saved setup keeps it (`CoreOptions.set_options` reads it back)."""
        return {
            "source": self.source.to_dict(),
            "arms": [a.to_dict() for a in self.arms],
            "batch_sizes": self.batch_sizes,
            "warmup": self.warmup,
            "steps": self.steps,
            "optimizer": self.optimizer,
            "lr": self.lr,
            "seed": self.seed,
            "device": self.device,
            "debug": self.debug.to_dict(),
            "save_weights": self.save_weights,
            "profile_steps": self.profile_steps,
        }


CORE_KEYS = tuple(f.name for f in fields(CoreFields))


class CoreOptions(QObject):
    changed = Signal()  # anything that affects validity

    def __init__(self, background: BackgroundCalls | None, parent: QObject | None = None):
        super().__init__(parent)
        self.model = ModelPicker(background)
        self.arms = ArmsEditor()
        self.debug = DebugOptionsBox()
        self.device = QComboBox()
        self.device.addItem("cpu")
        self.device.setToolTip(
            "torch.device for the model and batches. The list is what the installed torch\n"
            "can use (torch.cuda.is_available(), torch.backends.mps.is_available()),\n"
            "detected by a worker in the background."
        )
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
        hold_to_bound(self.warmup, "warmup", 100_000)
        self.warmup.setValue(5)
        self.warmup.setToolTip(
            "Untimed training steps after the first (compiling) step, before measuring."
        )
        self.steps = QSpinBox()
        hold_to_bound(self.steps, "steps", 10_000_000)
        self.steps.setValue(50)
        self.steps.setToolTip(STEPS_TIP)
        self.optimizer = QComboBox()
        self.optimizer.addItems(OPTIMIZERS)
        self.optimizer.setToolTip("torch.optim.SGD / torch.optim.Adam / torch.optim.AdamW")
        self.lr = QDoubleSpinBox()
        self.lr.setDecimals(6)
        hold_to_bound(self.lr, "lr", 10.0)
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
        hold_to_bound(self.profile_steps, "profile_steps", 1000)
        self.profile_steps.setSpecialValueText("off")
        self.profile_steps.setToolTip(PROFILE_TIP)

        self.model.changed.connect(self.changed)
        self.arms.changed.connect(self.changed)
        self.batch_sizes.textChanged.connect(self.changed)
        for spin in (self.warmup, self.steps, self.seed, self.profile_steps):
            spin.valueChanged.connect(self.changed)
        self.debug.presetRequested.connect(self._add_debug_arm)

    def run_rows(self) -> list[tuple[str, QWidget]]:
        """The Run box's rows, in order: (label, field)."""
        return [
            ("Device", self.device),
            ("Batch sizes", self.batch_sizes),
            ("", self.batch_error),
            ("Warm-up", self.warmup),
            ("Steps", self.steps),
            ("Optimizer", self.optimizer),
            ("Learning rate", self.lr),
            ("Seed", self.seed),
            ("Save trained weights", self.save_weights),
            ("torch.profiler steps", self.profile_steps),
        ]

    def set_environment(self, env: Environment) -> None:
        """The devices and backends the installed torch has (a worker's answer)."""
        devices = list(env.devices) or ["cpu"]
        current = self.device.currentText()
        self.device.clear()
        self.device.addItems(devices)
        if current in devices:
            self.device.setCurrentText(current)
        if env.backends:
            self.arms.set_backends(list(env.backends))

    def _add_debug_arm(self) -> None:
        arms = self.arms.arms()
        if not any(a.backend == "aot_eager" for a in arms):
            self.arms.set_arms([*arms, ArmSpec("aot_eager")])

    def batch_problem(self) -> str:
        """Why the batch sizes do not parse, or ""."""
        try:
            parse_batch_sizes(self.batch_sizes.text())
        except ConfigError as exc:
            return str(exc)
        return ""

    def weights_format(self) -> str | None:
        return dict(WEIGHT_FORMATS).get(self.save_weights.currentText())

    def held(self) -> CoreFields:
        """The fields as they are."""
        return CoreFields(
            source=self.model.source(),
            arms=tuple(self.arms.arms()),
            batch_sizes=self.batch_sizes.text(),
            warmup=self.warmup.value(),
            steps=self.steps.value(),
            optimizer=self.optimizer.currentText(),
            lr=self.lr.value(),
            seed=self.seed.value(),
            device=self.device.currentText(),
            debug=self.debug.options(),
            save_weights=self.weights_format(),
            profile_steps=self.profile_steps.value(),
        )

    def checked(self) -> tuple[CoreFields, tuple[int, ...]]:
        """The fields and the batch sizes parsed; ConfigError (with a readable message) if the
        model or the batch sizes are invalid."""
        model_problem = self.model.error()
        if model_problem:
            raise ConfigError(model_problem)
        held = self.held()
        return held, parse_batch_sizes(held.batch_sizes)

    def set_options(self, saved: SavedSetup, trust_model: bool = False) -> list[str]:
        """Apply a saved setup (`state()`, or a session's RunConfig.to_dict()); anything
        malformed is skipped, and a model file that no longer exists leaves the current model.
        The model is inspected only if trust_model (see model_picker.py). Returns the numbers a
        field clamped or rounded, to be named rather than run as something else unsaid."""
        source = saved.source.value
        if source is not None and Path(source.path).is_file():
            self.model.set_path(
                source.path,
                source.model,
                source.factory or "",
                source.input_shape or "",
                trusted=trust_model,
            )
        if saved.arms.value:
            self.arms.set_arms(list(saved.arms.value))
        if saved.batch_sizes.value is not None:
            self.batch_sizes.setText(saved.batch_sizes.value)
        for cell, widget in (
            (saved.warmup, self.warmup),
            (saved.steps, self.steps),
            (saved.seed, self.seed),
        ):
            if cell.value is not None:
                widget.setValue(cell.value)
        if (profile_steps := saved.profile_steps.value) is not None and profile_steps >= 0:
            self.profile_steps.setValue(profile_steps)
        for text, value in WEIGHT_FORMATS:
            if saved.save_weights.value == value:
                self.save_weights.setCurrentText(text)
        if (optimizer := saved.optimizer.value) in OPTIMIZERS:
            self.optimizer.setCurrentText(optimizer)
        if (lr := saved.lr.value) is not None and lr > 0:
            self.lr.setValue(float(lr))
        if device := saved.device.value:
            if self.device.findText(device) < 0:
                self.device.addItem(device)
            self.device.setCurrentText(device)
        debug = saved.debug.read(DebugOptions())
        if debug is not None:
            self.debug.set_options(debug)
        held = self.held()
        return not_fitting(
            ("warmup", saved.warmup, held.warmup),
            ("steps", saved.steps, held.steps),
            ("seed", saved.seed, held.seed),
            ("profile_steps", saved.profile_steps, held.profile_steps),
            ("lr", saved.lr, held.lr),
        )


def not_fitting(*checks: tuple[str, Saved[Any], float | None]) -> list[str]:
    """The saved numbers that a field holds otherwise (say, lr=1e-07 below the field's
    1e-06, clamped): each check is a field's name, its saved cell and what the field holds
    after taking it."""
    return [
        f"{name}={cell.quoted}"
        for name, cell, held in checks
        if cell.number is not None and not math.isclose(cell.number, held or 0, rel_tol=1e-9)
    ]
