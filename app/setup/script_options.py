"""The setup's Script box: a training script run unchanged, as `tcprof run [options] -- python
train.py ARGS` runs it, and its own options (what a step is, a sweep, the no-step timeout).

The run's `ScriptSource` is built by the engine's own function from the same words a command
line gives (config/script_command.py): the Arguments field is split as a shell splits it
(shlex), `{batch_size}` (or a `{name}` the Sweep field gives values) is a placeholder. The
working directory defaults to the script's folder: the window is started from a launcher or a
desktop, where "the directory tcprof was started in" (the CLI's choice, where the user typed
the command) says nothing about the script, while scripts read `data/` or `configurator.py`
relative to the folder they live in, and are usually run from there.

A script opened from a session is shown, never run, until the user confirms (model_consent.py):
`trusted` says whether it may run. Nothing here reads or imports the script.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from tcprof.app.common.theme import muted_colour
from tcprof.app.setup.saved_setup import ScriptFields
from tcprof.profiler.config import ConfigError, ScriptSource
from tcprof.profiler.config.script import (
    BATCH_SIZE,
    DEFAULT_NO_STEP_TIMEOUT_S,
    PLACEHOLDER,
    STEP_ON,
)
from tcprof.profiler.config.script_command import script_from_command, script_phases, sweep_name

ARGS_TIP = (
    "The script's arguments (sys.argv[1:]), as you would type them after python train.py;\n"
    "split as a shell splits them (quotes group words). {batch_size} is filled from the Batch\n"
    "sizes field, one configuration per size; any other {name} takes its values from Sweep."
)
CWD_TIP = (
    "The working directory the script runs in (relative paths such as data/ or\n"
    "configurator.py are read from here). Default: the script's own folder."
)
STEP_ON_TIP = (
    "What a step of the script is (--step-on): an optimizer step (gradient accumulation's\n"
    "micro-batches are one step), or a forward call of its model, for an inference script."
)
SWEEP_TIP = (
    "NAME=V1,V2 (--sweep): one configuration per value of {NAME} in the arguments, run as the\n"
    "batch-size phases. Empty: {batch_size} takes the Batch sizes field."
)
TIMEOUT_TIP = (
    "A script with no step after this long of its own time is not a training script\n"
    "(--no-step-timeout); it stops with that error rather than waiting. Compile time\n"
    "is not counted."
)


class ScriptOptions(QWidget):
    changed = Signal()  # anything that affects validity
    modelRequested = Signal()  # "Model file…": the user leaves the script for a model file

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._path = ""
        self.trusted = False
        self.file = QLabel()
        self.file.setTextInteractionFlags(self.file.textInteractionFlags())
        self.use_model = QPushButton("Model file…")
        self.use_model.setToolTip("Profile a model file instead of this script")
        self.use_model.clicked.connect(self.modelRequested)
        file_row = QHBoxLayout()
        file_row.setContentsMargins(0, 0, 0, 0)
        file_row.addWidget(self.file, 1)
        file_row.addWidget(self.use_model)
        self.args = QLineEdit()
        self.args.setPlaceholderText("e.g. --batch_size={batch_size} --max_iters=200")
        self.args.setToolTip(ARGS_TIP)
        self.cwd = QLineEdit()
        self.cwd.setToolTip(CWD_TIP)
        browse = self.browse = QPushButton("…")
        browse.setFixedWidth(32)
        browse.setToolTip("Choose the working directory")
        browse.clicked.connect(self._choose_cwd)
        cwd_row = QHBoxLayout()
        cwd_row.setContentsMargins(0, 0, 0, 0)
        cwd_row.addWidget(self.cwd, 1)
        cwd_row.addWidget(browse)
        self.step_on = QComboBox()
        self.step_on.addItems(STEP_ON)
        self.step_on.setToolTip(STEP_ON_TIP)
        self.sweep = QLineEdit()
        self.sweep.setPlaceholderText("none: {batch_size} takes the batch sizes")
        self.sweep.setToolTip(SWEEP_TIP)
        self.no_step_timeout = QDoubleSpinBox()
        self.no_step_timeout.setRange(1.0, 24 * 3600.0)
        self.no_step_timeout.setDecimals(0)
        self.no_step_timeout.setSuffix(" s")
        self.no_step_timeout.setValue(DEFAULT_NO_STEP_TIMEOUT_S)
        self.no_step_timeout.setToolTip(TIMEOUT_TIP)
        self.command = QLabel()
        self.command.setWordWrap(True)
        # a long path or command wraps or is clipped: never a minimum width for the panel
        for label in (self.file, self.command):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.command.setStyleSheet(f"color: {muted_colour()}; font-size: 8pt")
        self.command.setTextInteractionFlags(self.command.textInteractionFlags())
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Script", file_row)
        form.addRow("Arguments", self.args)
        form.addRow("Working dir", cwd_row)
        form.addRow("Step on", self.step_on)
        form.addRow("Sweep", self.sweep)
        form.addRow("No-step timeout", self.no_step_timeout)
        form.addRow("", self.command)
        for edit in (self.args, self.cwd, self.sweep):
            edit.textChanged.connect(self._edited)
        self.step_on.currentIndexChanged.connect(self._edited)
        self.no_step_timeout.valueChanged.connect(self._edited)
        self.hide()

    # -- the script -----------------------------------------------------------------------------
    def active(self) -> bool:
        return bool(self._path)

    def path(self) -> str:
        return self._path

    def set_script(
        self,
        path: str,
        saved: ScriptFields | Mapping[str, object] | None = None,
        trusted: bool = True,
    ) -> None:
        """Show this script with its fields (the per-script memory's JSON, read here, or a
        saved setup's; missing ones take the defaults: no arguments, the script's folder). A
        session's script is shown untrusted whatever `trusted` says (model_consent.py)."""
        self._path = str(Path(path).expanduser().absolute())
        fields = saved if isinstance(saved, ScriptFields) else ScriptFields.of(saved or {}, path)
        self.trusted = trusted and not fields.session
        self.file.setText(Path(self._path).name)  # its folder: the tooltip, the Working dir
        self.file.setToolTip(self._path)
        for edit, text in (
            (self.args, fields.args),
            (self.cwd, fields.cwd if fields.cwd is not None else str(Path(self._path).parent)),
            (self.sweep, fields.sweep),
        ):
            edit.blockSignals(True)
            edit.setText(text)
            edit.setCursorPosition(0)  # its start shows: the script's first arguments
            edit.blockSignals(False)
        self.step_on.setCurrentText(fields.step_on)
        self.no_step_timeout.setValue(float(fields.no_step_timeout_s))
        self.show()
        self._edited()

    def clear(self) -> None:
        if self._path:
            self._path = ""
            self.trusted = False
            self.hide()
            self.changed.emit()

    def needs_trust(self) -> bool:
        return self.active() and not self.trusted

    def trust(self) -> None:
        self.trusted = True
        self.changed.emit()

    def fields(self) -> ScriptFields:
        """What the Script box holds, as `set_script` takes it back."""
        return ScriptFields(
            self._path,
            self.args.text(),
            self.cwd.text(),
            self.sweep.text(),
            self.step_on.currentText(),
            self.no_step_timeout.value(),
        )

    def state(self) -> dict[str, Any]:
        """The fields as JSON, for the preferences (the per-script memory, the panel's state)."""
        return {k: v for k, v in dataclasses.asdict(self.fields()).items() if k != "session"}

    def uses_batch_sizes(self) -> bool:
        """Whether the Batch sizes field fills the arguments ({batch_size}, no Sweep)."""
        if self.sweep.text().strip():
            return False
        return any(BATCH_SIZE in PLACEHOLDER.findall(a) for a in [self.args.text()])

    # -- the run --------------------------------------------------------------------------------
    def run_fields(self, batch_sizes: str) -> tuple[ScriptSource, tuple[int, ...]]:
        """RunConfig's `script` and `batch_sizes` (the phases), built as `tcprof run -- python
        SCRIPT ARGS` builds them; ConfigError (the engine's words) when they cannot be."""
        try:
            args = shlex.split(self.args.text())
        except ValueError as exc:
            raise ConfigError(
                f"the Arguments field does not split as a shell would: {exc}"
            ) from exc
        cwd = self.cwd.text().strip() or str(Path(self._path).parent)
        if not Path(cwd).expanduser().is_dir():
            raise ConfigError(f"the working directory {cwd} is not a folder")
        cwd = str(Path(cwd).expanduser().absolute())
        sweep = self.sweep.text().strip() or None
        script = script_from_command(
            ["python", self._path, *args],
            cwd,
            step_on=self.step_on.currentText(),
            sweep=sweep_name(sweep),
            no_step_timeout_s=self.no_step_timeout.value(),
        )
        phases, script = script_phases(script, sweep, batch_sizes, batch_sizes_given=False)
        return script, phases

    def _edited(self) -> None:
        try:
            script, _phases = self.run_fields("1")
            words = " ".join(["python", Path(script.path).name, self.args.text().strip()])
            here = Path(script.cwd) == Path(script.path).parent
            self.command.setText(f"runs {words.strip()} in {'its folder' if here else script.cwd}")
        except ConfigError:
            self.command.setText("")
        self.changed.emit()

    def _choose_cwd(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Working directory", self.cwd.text())
        if folder:
            self.cwd.setText(folder)
