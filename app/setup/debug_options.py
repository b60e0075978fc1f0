"""Debug flags for the compiled arms, and an honest "Debug" preset.

`torch.compile` has no `mode="debug"`. The preset says exactly what it sets: an arm with
`backend="aot_eager"` (AOTAutograd tracing without Inductor code generation, so failures point
at Dynamo/AOTAutograd, not at generated kernels) plus the graph-break and recompile logs and
`torch._dynamo.config.verbose`.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QLabel, QPushButton, QVBoxLayout, QWidget

from tcprof.profiler.config import DebugOptions

PRESET_TEXT = (
    'Debug preset sets: an arm torch.compile(backend="aot_eager"), '
    "torch._logging.set_logs(graph_breaks=True, recompiles=True), "
    "torch._dynamo.config.verbose = True and a torch._dynamo.explain pre-pass. "
    '(torch.compile has no mode="debug": the seed guide\'s torch.compile(model, mode="debug") raises.)'
)

LOG_FLAGS = (
    (
        "graph_breaks",
        "log graph breaks",
        "torch._logging.set_logs(graph_breaks=True): why Dynamo split the graph, with file:line",
    ),
    (
        "recompiles",
        "log recompiles",
        "torch._logging.set_logs(recompiles=True): which guard failed and caused a recompile",
    ),
    (
        "guards",
        "log guards",
        "torch._logging.set_logs(guards=True): the guards each compiled frame checks",
    ),
    (
        "recompiles_verbose",
        "log all guard failures",
        "torch._logging.set_logs(recompiles_verbose=True): every failing guard, not only the first",
    ),
    (
        "dynamic",
        "log dynamic shapes",
        "torch._logging.set_logs(dynamic=True): symbolic shapes, specialisations and their reasons",
    ),
    (
        "perf_hints",
        "log perf hints",
        "torch._logging.set_logs(perf_hints=True): Inductor's performance hints",
    ),
    (
        "output_code",
        "log generated code",
        "torch._logging.set_logs(output_code=True): the Python/C++/Triton code Inductor generated",
    ),
)
EXTRA_FLAGS = (
    (
        "explain",
        "explain pre-pass",
        "torch._dynamo.explain(model)(batch) before the first step (untimed): graphs, breaks, ops",
    ),
    (
        "compile_debug",
        "compile debug dump",
        "TORCH_COMPILE_DEBUG=1: Dynamo/AOT/Inductor debug files under the session folder's artifacts/",
    ),
    (
        "trace",
        "TORCH_TRACE + tlparse",
        "TORCH_TRACE structured log per arm, rendered by tlparse (if installed) into an HTML report",
    ),
    (
        "memory_snapshot",
        "CUDA memory snapshot",
        "torch.cuda.memory._record_memory_history: a snapshot.pickle per batch size for pytorch.org/memory_viz (CUDA only)",
    ),
)

# What the preset ticks, besides verbose (PRESET_TEXT says it): keys of LOG_FLAGS and EXTRA_FLAGS.
PRESET_LOGS = ("graph_breaks", "recompiles")
PRESET_EXTRA = ("explain",)


class DebugOptionsBox(QWidget):
    changed = Signal()
    presetRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.logs: dict[str, QCheckBox] = {}
        for key, text, tip in LOG_FLAGS:
            box = QCheckBox(text)
            box.setToolTip(tip)
            box.toggled.connect(self.changed)
            layout.addWidget(box)
            self.logs[key] = box
        self.verbose = QCheckBox("verbose Dynamo errors")
        self.verbose.setToolTip("torch._dynamo.config.verbose = True: full internal stack traces")
        self.suppress = QCheckBox("suppress errors (hides failures)")
        self.suppress.setToolTip(
            "torch._dynamo.config.suppress_errors = True: a failing compile silently runs eagerly.\n"
            "Hides real failures; the summary flags arms that fell back."
        )
        self.fail_on_recompile = QCheckBox("fail on recompile")
        self.fail_on_recompile.setToolTip(
            'torch.compiler.set_stance("fail_on_recompile"): a recompile is an error'
        )
        for box in (self.verbose, self.suppress, self.fail_on_recompile):
            box.toggled.connect(self.changed)
            layout.addWidget(box)
        self.extra: dict[str, QCheckBox] = {}
        for key, text, tip in EXTRA_FLAGS:
            box = QCheckBox(text)
            box.setToolTip(tip)
            box.toggled.connect(self.changed)
            layout.addWidget(box)
            self.extra[key] = box
        self.preset = QPushButton("Debug preset")
        self.preset.setToolTip(PRESET_TEXT)
        self.preset.clicked.connect(self.apply_preset)
        layout.addWidget(self.preset)
        note = QLabel(PRESET_TEXT)
        note.setWordWrap(True)
        note.setStyleSheet("font-size: 8pt")
        layout.addWidget(note)

    def apply_preset(self) -> None:
        """Tick the preset's flags; the owner adds the aot_eager arm (presetRequested)."""
        for key in PRESET_LOGS:
            self.logs[key].setChecked(True)
        for key in PRESET_EXTRA:
            self.extra[key].setChecked(True)
        self.verbose.setChecked(True)
        self.presetRequested.emit()

    def options(self) -> DebugOptions:
        return DebugOptions(
            logs=tuple(k for k, box in self.logs.items() if box.isChecked()),
            verbose=self.verbose.isChecked(),
            suppress_errors=self.suppress.isChecked(),
            fail_on_recompile=self.fail_on_recompile.isChecked(),
            **{key: box.isChecked() for key, box in self.extra.items()},
        )

    def set_options(self, options: DebugOptions) -> None:
        for key, box in self.logs.items():
            box.setChecked(key in options.logs)
        self.verbose.setChecked(options.verbose)
        self.suppress.setChecked(options.suppress_errors)
        self.fail_on_recompile.setChecked(options.fail_on_recompile)
        for key, box in self.extra.items():
            box.setChecked(bool(getattr(options, key, False)))
