"""The Model box's two optional fields: the user's checkpoint (`--weights`), loaded into the
model before every arm runs, and the repeated block's class (`--block-module`), the unit that
regional arms compile and FSDP arms shard. Each maps to a RunConfig field, named in its
tooltip; an empty field is the default (fresh weights; the largest nn.ModuleList's children).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QFormLayout, QHBoxLayout, QLineEdit, QPushButton, QWidget

from tcprof.app.setup.saved_setup import SavedSetup
from tcprof.profiler.config import WEIGHT_SUFFIXES


@dataclass(frozen=True)
class ExtrasFields:
    """What the two fields hold: RunConfig's fields of the same names; None for an empty one."""

    weights: str | None
    block_module: str | None


EXTRA_KEYS = tuple(f.name for f in fields(ExtrasFields))

WEIGHTS_TIP = (
    "RunConfig.weights (--weights): a checkpoint loaded into the model before the run, so every\n"
    "arm starts from your trained weights. .safetensors, or .pt/.pth/.bin read with\n"
    "torch.load(weights_only=True): never an arbitrary pickle. A nested 'state_dict' or\n"
    "'model' key is found, '_orig_mod.' (torch.compile) and 'module.' (DDP) prefixes are\n"
    "stripped, and the load is strict: a mismatch lists missing and unexpected keys.\n"
    "Empty: the model's own initial weights, from the run's seed."
)
BLOCK_TIP = (
    "RunConfig.block_module (--block-module): the class of the model's repeated block (e.g.\n"
    "TransformerBlock). Regional arms (regional=true) compile each block instead of the whole\n"
    "model; FSDP arms shard each block. Empty: the children of the model's largest\n"
    "nn.ModuleList."
)


class ModelExtras(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.weights = QLineEdit()
        self.weights.setPlaceholderText("none: the model's initial weights")
        self.weights.setToolTip(WEIGHTS_TIP)
        self.weights.setClearButtonEnabled(True)
        browse = self.browse = QPushButton("…")
        browse.setToolTip("Choose a checkpoint file")
        browse.setFixedWidth(32)
        browse.clicked.connect(self._choose_weights)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.weights, 1)
        row.addWidget(browse)
        self.block_module = QLineEdit()
        self.block_module.setPlaceholderText("largest nn.ModuleList's children")
        self.block_module.setToolTip(BLOCK_TIP)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Checkpoint", row)
        form.addRow("Repeated block", self.block_module)
        for edit in (self.weights, self.block_module):
            edit.textChanged.connect(self.changed)

    def _choose_weights(self) -> None:
        start = str(Path(self.weights.text()).parent) if self.weights.text() else ""
        pattern = " ".join(f"*{suffix}" for suffix in WEIGHT_SUFFIXES)
        path, _ = QFileDialog.getOpenFileName(
            self, "Load weights from a checkpoint", start, f"Checkpoints ({pattern})"
        )
        if path:
            self.weights.setText(path)

    def options(self) -> ExtrasFields:
        """The fields as they are: None for an empty one."""
        return ExtrasFields(
            weights=self.weights.text().strip() or None,
            block_module=self.block_module.text().strip() or None,
        )

    def set_options(self, saved: SavedSetup) -> None:
        """Apply saved options; a value that is not text is skipped."""
        for cell, edit in ((saved.weights, self.weights), (saved.block_module, self.block_module)):
            if not cell.given or cell.fits:
                edit.setText(cell.value or "")
