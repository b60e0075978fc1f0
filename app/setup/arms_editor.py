"""The arms list: eager and any number of torch.compile configurations, added and edited here.

An arm is the engine's `ArmSpec`; this widget only edits a list of them. Backends come from the
worker's `torch._dynamo.list_backends()` once the environment probe answers; until then a short
built-in list keeps the editor usable (the window never waits for the probe). The dialog lists
them grouped, with what each is for (backend_choice.py); a new arm starts as inductor.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.theme import muted_colour
from tcprof.app.setup.backend_choice import description, fill_backends
from tcprof.app.setup.narrow import text_wide
from tcprof.profiler.config import COMPILE_MODES, ArmSpec, interpreter_path

DEFAULT_ARMS = (ArmSpec("eager"), ArmSpec("inductor"))
NEW_ARM = ArmSpec("inductor")  # what Add… starts from: the backend most users want
FALLBACK_BACKENDS = ("eager", "inductor", "aot_eager", "cudagraphs")
DYNAMIC_CHOICES = (("None (automatic)", None), ("True", True), ("False", False))


def describe(arm: ArmSpec) -> str:
    if not arm.compiled:
        return "eager: the model as written, no torch.compile (the baseline when first)"
    opts = [f"backend={arm.backend!r}"]
    if arm.mode:
        opts.append(f"mode={arm.mode!r}")
    if arm.dynamic is not None:
        opts.append(f"dynamic={arm.dynamic}")
    if arm.fullgraph:
        opts.append("fullgraph=True")
    call = f"torch.compile(model, {', '.join(opts)})"
    if arm.regional:
        call = f"block.compile({', '.join(opts)}) for each repeated block"
    if arm.mark_dynamic is not None:
        call += f", inputs' dimension {arm.mark_dynamic} marked dynamic"
    return call


class ArmDialog(QDialog):
    """Edit one arm: backend, mode, dynamic, fullgraph, label. adding: a new arm (the title
    says which)."""

    def __init__(
        self,
        arm: ArmSpec,
        backends: list[str],
        parent: QWidget | None = None,
        adding: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add an arm" if adding else f"Edit arm {arm.name}")
        form = QFormLayout(self)
        self.backend = QComboBox()
        self.backend.setEditable(True)
        fill_backends(self.backend, backends, arm.backend)
        self.backend.setToolTip(
            "torch.compile(backend=...): 'eager' here means no torch.compile at all.\n"
            "The list is torch._dynamo.list_backends(exclude_tags=()) from a worker, grouped;\n"
            "hover over a backend for what it is for."
        )
        self.backend_note = QLabel()
        self.backend_note.setWordWrap(True)
        self.backend_note.setStyleSheet(f"color: {muted_colour()}")
        self.mode = QComboBox()
        self.mode.addItem("(none)", None)
        for m in COMPILE_MODES:
            self.mode.addItem(m, m)
        self.mode.setCurrentIndex(max(0, self.mode.findData(arm.mode)))
        self.mode.setToolTip("torch.compile(mode=...): only the inductor backend takes a mode.")
        self.dynamic = QComboBox()
        for text, value in DYNAMIC_CHOICES:
            self.dynamic.addItem(text, value)
        self.dynamic.setCurrentIndex([v for _, v in DYNAMIC_CHOICES].index(arm.dynamic))
        self.dynamic.setToolTip(
            "torch.compile(dynamic=...): None specialises first and recompiles with dynamic\n"
            "shapes when a size changes; True marks sizes dynamic up front; False never does."
        )
        self.fullgraph = QCheckBox("fullgraph (a graph break is an error)")
        self.fullgraph.setChecked(arm.fullgraph)
        self.fullgraph.setToolTip("torch.compile(fullgraph=True): raise on any graph break.")
        self.regional = QCheckBox("regional (compile each repeated block)")
        self.regional.setChecked(arm.regional)
        self.regional.setToolTip(
            "Compile each repeated block (the children of the model's largest nn.ModuleList,\n"
            "or the class named with --block-module) instead of the whole model: a shorter\n"
            "compile, perhaps slower steps. Beside a whole-model twin the results weigh the two."
        )
        self._parallel = arm.parallel  # no field here: kept as the arm had it
        self._mark_dim = arm.mark_dynamic if arm.mark_dynamic is not None else 0
        dim_text = "the batch dimension" if self._mark_dim == 0 else f"dimension {self._mark_dim}"
        self.mark_dynamic = QCheckBox(f"mark {dim_text} dynamic")
        self.mark_dynamic.setChecked(arm.mark_dynamic is not None)
        self.mark_dynamic.setToolTip(
            "torch._dynamo.mark_dynamic(x, 0) on every input tensor: a new batch size reuses\n"
            "the compiled graph instead of recompiling (the fix recompile advice suggests)."
        )
        self.python = QLineEdit(arm.python or "")
        self.python.setPlaceholderText("this environment's")
        self.python.setToolTip(
            "Another interpreter for this arm (python=PATH), e.g. /opt/torch-next/bin/python:\n"
            "another environment, another torch release, measured in the same rounds. It needs\n"
            "torch and psutil, not tcprof; it is checked before any arm runs."
        )
        self.label = QLineEdit(arm.label or "")
        self.label.setPlaceholderText("optional display name")
        self.label.setToolTip("A name for this arm in plots and tables (not passed to torch).")
        form.addRow("Backend", self.backend)
        form.addRow("", self.backend_note)
        form.addRow("Mode", self.mode)
        form.addRow("Dynamic", self.dynamic)
        form.addRow("", self.fullgraph)
        form.addRow("", self.regional)
        form.addRow("", self.mark_dynamic)
        form.addRow("Python", self.python)
        form.addRow("Label", self.label)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.backend.currentTextChanged.connect(self._update_enabled)
        self._update_enabled()

    def _update_enabled(self) -> None:
        backend = self.backend.currentText().strip()
        self.backend_note.setText(description(backend))
        compiled = backend != "eager"
        self.mode.setEnabled(backend == "inductor")
        self.dynamic.setEnabled(compiled)
        self.fullgraph.setEnabled(compiled)
        self.regional.setEnabled(compiled)
        self.mark_dynamic.setEnabled(compiled)

    def arm(self) -> ArmSpec:
        backend = self.backend.currentText().strip() or "eager"
        compiled = backend != "eager"
        return ArmSpec(
            backend=backend,
            mode=self.mode.currentData() if backend == "inductor" else None,
            dynamic=self.dynamic.currentData() if compiled else None,
            fullgraph=self.fullgraph.isChecked() if compiled else False,
            label=self.label.text().strip() or None,
            regional=self.regional.isChecked() if compiled else False,
            mark_dynamic=self._mark_dim if compiled and self.mark_dynamic.isChecked() else None,
            parallel=self._parallel,
            python=interpreter_path(self.python.text().strip())
            if self.python.text().strip()
            else None,
        )


class ArmsEditor(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backends = list(FALLBACK_BACKENDS)
        self.list = QListWidget()
        self.list.setMaximumHeight(110)
        self.list.setToolTip(
            "Each arm runs in its own worker process. The first arm is the baseline for\n"
            "speedup, memory ratio and the accuracy check. Double-click to edit."
        )
        self.list.itemDoubleClicked.connect(lambda _item: self.edit_selected())
        add = QPushButton("Add…")
        add.setToolTip("Add a torch.compile(model, backend=..., mode=..., ...) arm")
        add.clicked.connect(self.add_arm)
        self.edit_button = QPushButton("Edit…")
        self.edit_button.clicked.connect(self.edit_selected)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_selected)
        buttons = QHBoxLayout()
        for b in (add, self.edit_button, self.remove_button):
            buttons.addWidget(text_wide(b))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        self._arms: list[ArmSpec] = []
        self.set_arms(list(DEFAULT_ARMS))

    def set_backends(self, backends: list[str]) -> None:
        """Installed backends, 'eager' first and the fault-injection ones last."""
        names = [b for b in backends if b != "eager"]
        names.sort(key=lambda b: ("TESTING_ONLY" in b, b != "inductor", b))
        self.backends = ["eager", *names]

    def arms(self) -> list[ArmSpec]:
        return list(self._arms)

    def set_arms(self, arms: list[ArmSpec]) -> None:
        self._arms = list(arms)
        self._refresh()

    def _refresh(self) -> None:
        row = self.list.currentRow()
        self.list.clear()
        for arm in self._arms:
            item = QListWidgetItem(arm.name)
            item.setToolTip(describe(arm))
            self.list.addItem(item)
        self.list.setCurrentRow(min(max(row, 0), len(self._arms) - 1))
        self.changed.emit()

    def _dialog(self, arm: ArmSpec, adding: bool = False) -> ArmSpec | None:
        dialog = ArmDialog(arm, self.backends, self, adding=adding)
        return dialog.arm() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def add_arm(self) -> None:
        arm = self._dialog(NEW_ARM, adding=True)
        if arm is not None:
            self._arms.append(arm)
            self._refresh()
            self.list.setCurrentRow(len(self._arms) - 1)

    def edit_selected(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self._arms):
            arm = self._dialog(self._arms[row])
            if arm is not None:
                self._arms[row] = arm
                self._refresh()

    def remove_selected(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self._arms):
            del self._arms[row]
            self._refresh()
