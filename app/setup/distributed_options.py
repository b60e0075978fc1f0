"""The Distributed group of the setup panel: distributed arms under torchrun, on one or several
nodes. Collapsed until opened, or while any of its settings differs from the defaults (a
restored distributed session shows what it runs). Each field maps to a RunConfig field, named
in its tooltip; the panel takes them through the carried settings (carried_settings.py).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.setup.bounds import hold_to_bound
from tcprof.app.setup.saved_setup import Saved, SavedSetup
from tcprof.profiler.config import DEFAULT_RDZV_TIMEOUT_S, PARALLEL


@dataclass(frozen=True)
class DistributedFields:
    """What the group holds: RunConfig's fields of the same names, in its types."""

    nproc: int
    parallel: str
    nnodes: int
    node_rank: int
    rdzv_endpoint: str | None
    rdzv_timeout_s: float


DISTRIBUTED_KEYS = tuple(f.name for f in fields(DistributedFields))
DEFAULTS = DistributedFields(1, "none", 1, 0, None, DEFAULT_RDZV_TIMEOUT_S)
NPROC_TIP = (
    "RunConfig.nproc (--nproc): ranks per node of a distributed arm, started by torchrun\n"
    "(gloo on cpu, nccl on cuda with one device per rank). The batch size is per rank;\n"
    "each rank gets the host's physical cores divided by its local ranks as threads."
)
PARALLEL_TIP = (
    "RunConfig.parallel (--parallel): ddp wraps the model in DistributedDataParallel, fsdp\n"
    "applies FSDP2's fully_shard to each repeated block and the root; torch.compile comes\n"
    "after. none: one process per arm. An arm can override it (parallel=...)."
)
NODES_TIP = (
    "RunConfig.nnodes / node_rank / rdzv_endpoint (--nnodes, --node-rank, --rdzv-endpoint):\n"
    "several machines. The window runs node 0 (it runs the schedule and writes the session);\n"
    "on each other machine run the same command with --node-rank K:\n"
    "  tcprof run ... --nnodes M --node-rank K --rdzv-endpoint HOST:PORT\n"
    "HOST:PORT is node 0's address and a free port, reachable from every node."
)
TIMEOUT_TIP = (
    "RunConfig.rdzv_timeout_s (--rdzv-timeout): how long the nodes wait for each other, at the\n"
    "start and at each arm's rendezvous; apart from the stall timeout."
)


class DistributedOptions(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.toggle = QToolButton()
        self.toggle.setText("Distributed")
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
        self.toggle.toggled.connect(self._show_body)
        self.nproc = _spin("nproc", 1024, NPROC_TIP)
        self.parallel = QComboBox()
        self.parallel.addItems(PARALLEL)
        self.parallel.setToolTip(PARALLEL_TIP)
        self.nnodes = _spin("nnodes", 4096, NODES_TIP)
        self.node_rank = QSpinBox()
        self.node_rank.setRange(0, 4095)
        self.node_rank.setToolTip(NODES_TIP)
        self.endpoint = QLineEdit()
        self.endpoint.setPlaceholderText("host:port of node 0 (several nodes only)")
        self.endpoint.setToolTip(NODES_TIP)
        self.timeout = QDoubleSpinBox()
        self.timeout.setDecimals(0)
        hold_to_bound(self.timeout, "rdzv_timeout_s", 86400.0)
        self.timeout.setSuffix(" s")
        self.timeout.setValue(DEFAULT_RDZV_TIMEOUT_S)
        self.timeout.setToolTip(TIMEOUT_TIP)
        self.body = QWidget()
        form = QFormLayout(self.body)
        form.setContentsMargins(12, 0, 0, 0)
        form.addRow("Processes per node", self.nproc)
        form.addRow("Parallel", self.parallel)
        form.addRow("Nodes", self.nnodes)
        form.addRow("Node rank", self.node_rank)
        form.addRow("Rendezvous endpoint", self.endpoint)
        form.addRow("Rendezvous timeout", self.timeout)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toggle)
        layout.addWidget(self.body)
        self._show_body(False)
        for spin in (self.nproc, self.nnodes, self.node_rank):
            spin.valueChanged.connect(self.changed)
        self.parallel.currentTextChanged.connect(self.changed)
        self.endpoint.textChanged.connect(self.changed)
        self.timeout.valueChanged.connect(self.changed)

    def _show_body(self, shown: bool) -> None:
        self.toggle.setChecked(shown)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.body.setVisible(shown)

    def options(self) -> DistributedFields:
        """The fields as they are."""
        return DistributedFields(
            nproc=self.nproc.value(),
            parallel=self.parallel.currentText(),
            nnodes=self.nnodes.value(),
            node_rank=self.node_rank.value(),
            rdzv_endpoint=self.endpoint.text().strip() or None,
            rdzv_timeout_s=float(self.timeout.value()),
        )

    def set_options(self, saved: SavedSetup) -> list[str]:
        """Apply saved options (a state without them runs on one process: the defaults);
        the names of values that do not fit a field, which are left at the default."""
        misfits = []
        for key, spin, cell, default in (
            ("nproc", self.nproc, saved.nproc, 1),
            ("nnodes", self.nnodes, saved.nnodes, 1),
            ("node_rank", self.node_rank, saved.node_rank, 0),
        ):
            misfits += _set_int(spin, key, cell, default)
        parallel = saved.parallel.read("none")
        self.parallel.setCurrentText(parallel if parallel in PARALLEL else "none")
        self.endpoint.setText(saved.rdzv_endpoint.value or "")
        timeout = saved.rdzv_timeout_s.read(DEFAULT_RDZV_TIMEOUT_S)
        if timeout is not None and self.timeout.minimum() <= timeout <= self.timeout.maximum():
            self.timeout.setValue(float(timeout))
        else:
            self.timeout.setValue(DEFAULT_RDZV_TIMEOUT_S)
            misfits.append(f"rdzv_timeout_s={saved.rdzv_timeout_s.quoted}")
        self._show_body(self.options() != DEFAULTS or self.toggle.isChecked())
        return misfits


def _spin(field: str, high: int, tip: str) -> QSpinBox:
    """A count whose lowest value is its option's declared bound."""
    spin = QSpinBox()
    hold_to_bound(spin, field, high)
    spin.setToolTip(tip)
    return spin


def _set_int(spin: QSpinBox, key: str, cell: Saved[int], default: int) -> list[str]:
    """The saved count in the spin box, or its default and the value quoted as not fitting."""
    value = cell.read(default)
    if value is not None and spin.minimum() <= value <= spin.maximum():
        spin.setValue(value)
        return []
    spin.setValue(default)
    return [f"{key}={cell.quoted}"]
