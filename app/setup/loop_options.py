"""The Loop box of the setup panel: which loop every arm runs (training or inference), under
which autocast dtype, in which memory format, and whether compiled arms compile the optimizer
step. Each option maps to a RunConfig field, named in its tooltip."""

from __future__ import annotations

from dataclasses import dataclass, fields

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QWidget

from tcprof.app.setup.narrow import wrapping
from tcprof.app.setup.saved_setup import SavedSetup
from tcprof.profiler.config import AMP_DTYPES, LOOPS

AMP_OFF = "off (fp32)"


@dataclass(frozen=True)
class LoopFields:
    """What the Loop box holds: RunConfig's fields of the same names, in its types."""

    loop: str
    amp: str | None
    channels_last: bool
    compile_optimizer: bool


LOOP_KEYS = tuple(f.name for f in fields(LoopFields))

LOOP_TIP = (
    "RunConfig.loop (--loop):\n"
    "train: forward, loss, loss.backward(), optimizer.step(), optimizer.zero_grad().\n"
    "inference: model.eval(), forward only under torch.inference_mode(); a compiled arm\n"
    "compiles and warms in that mode, so it measures the graphs serving would run. The\n"
    "accuracy check then compares outputs only."
)
AMP_TIP = (
    "RunConfig.amp (--amp): torch.autocast(device_type=<the run's device>, dtype=torch.bfloat16\n"
    "or torch.float16) around forward and loss; fp16 training adds torch.amp.GradScaler\n"
    "(scaler.scale(loss).backward(), scaler.step(optimizer), scaler.update()). The accuracy\n"
    "check uses the dtype's tolerances (bf16: rtol 1.6e-2; fp16: rtol 1e-3) unless\n"
    "--rtol/--atol are given. A torch build without autocast for the dtype on the device is\n"
    "reported as a usage error."
)
CHANNELS_LAST_TIP = (
    "RunConfig.channels_last (--channels-last): model.to(memory_format=torch.channels_last)\n"
    "and every 4-D input x.contiguous(memory_format=torch.channels_last); other inputs stay\n"
    "as they are (a run without a 4-D input logs a warning)."
)
COMPILE_OPTIMIZER_TIP = (
    "RunConfig.compile_optimizer (--compile-optimizer): in compiled arms, the optimizer step\n"
    "is compiled too, as PyTorch's compiled-optimizer recipe does:\n"
    "  @torch.compile(fullgraph=False)  # with the arm's backend\n"
    "  def opt_step(): optimizer.step()\n"
    "Its compile time counts in the first step. The accuracy check also compares every\n"
    "parameter after one optimizer step. Training only; the eager baseline steps eagerly."
)


class LoopOptions(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.loop = QComboBox()
        self.loop.addItems(LOOPS)
        self.loop.setToolTip(LOOP_TIP)
        self.amp = QComboBox()
        self.amp.addItems([AMP_OFF, *AMP_DTYPES])
        self.amp.setToolTip(AMP_TIP)
        self.channels_last = QCheckBox("channels_last")
        self.channels_last.setToolTip(CHANNELS_LAST_TIP)
        self.compile_optimizer = QCheckBox("Compile the optimizer step")
        self.compile_optimizer.setToolTip(COMPILE_OPTIMIZER_TIP)
        form = wrapping(QFormLayout(self))
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Loop", self.loop)
        form.addRow("Mixed precision", self.amp)
        form.addRow("", self.channels_last)
        form.addRow("", self.compile_optimizer)
        for combo in (self.loop, self.amp):
            combo.currentTextChanged.connect(self.changed)
        for box in (self.channels_last, self.compile_optimizer):
            box.toggled.connect(self.changed)

    def options(self) -> LoopFields:
        """The fields as they are."""
        amp = self.amp.currentText()
        return LoopFields(
            loop=self.loop.currentText(),
            amp=None if amp == AMP_OFF else amp,
            channels_last=self.channels_last.isChecked(),
            compile_optimizer=self.compile_optimizer.isChecked(),
        )

    def set_options(self, saved: SavedSetup) -> None:
        """Apply saved options; anything malformed is skipped. A state without these keys (a
        session from before loop kinds) is fp32 training."""
        loop = saved.loop.read("train")
        if loop in LOOPS:
            self.loop.setCurrentText(loop)
        if not saved.amp.given or saved.amp.null or saved.amp.value in AMP_DTYPES:
            self.amp.setCurrentText(saved.amp.value or AMP_OFF)
        for cell, box in (
            (saved.channels_last, self.channels_last),
            (saved.compile_optimizer, self.compile_optimizer),
        ):
            value = cell.read(False)
            if value is not None:
                box.setChecked(value)
