"""The Measurement box of the setup panel: replicates, the A/A control, threads, caches, the
accuracy check and the stall timeout. Each option maps to a RunConfig field, named in its
tooltip."""

from __future__ import annotations

from dataclasses import dataclass, fields

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QSpinBox,
    QWidget,
)

from tcprof.app.setup.bounds import hold_to_bound, lowest
from tcprof.app.setup.narrow import wrapping
from tcprof.app.setup.saved_setup import SavedSetup
from tcprof.profiler.analysis.stats import EQUIVALENCE_MARGIN
from tcprof.profiler.config import (
    CONTROL_LABEL,
    CONTROL_SUFFIX,
    DEFAULT_STALL_TIMEOUT_S,
    resolve_threads,
)

CONTROL_CHOICES = (  # the combo's text, RunConfig.control
    ("none", None),
    ("eager twin", "eager"),
    ("compiled twin", "compiled"),
    ("both twins", "both"),
)


@dataclass(frozen=True)
class MeasurementFields:
    """What the Measurement box holds: RunConfig's fields of the same names, in its types;
    `replicates` None at auto (SetupPanel.config's rule)."""

    replicates: int | None
    stop_early: bool
    budget_s: float | None
    control: str | None
    threads: int | None
    warm_cache: bool
    portable_round: bool
    accuracy: bool
    stall_timeout_s: float | None
    apply_advice: bool


MEASUREMENT_KEYS = tuple(f.name for f in fields(MeasurementFields))
START_REPLICATES = 0  # auto: the rounds that balance the arms chosen (SetupPanel.config)
MAX_STALL_TIMEOUT_S = 7 * 24 * 3600.0
MAX_BUDGET_S = 24 * 3600.0
BUDGET_TIP = (
    "RunConfig.budget_s (--budget): with Replicates at auto, the rounds stop at a balanced\n"
    "round before they would take longer than this (the accuracy check follows). Without it\n"
    "a run stops once its answer is settled, its intervals are within ±3%, or at its last\n"
    "look (6 rounds for 2 arms). none = no budget. Unused with a number of Replicates."
)
STALL_TIMEOUT_TIP = (
    "RunConfig.stall_timeout_s (--stall-timeout): a phase (loading, compiling, a step) that\n"
    "makes no progress for this many seconds ends the arm with a 'stalled in PHASE' error,\n"
    "so a forward that sleeps, waits on input() or on a dead peer does not hang the run.\n"
    "A compile that keeps using CPU counts as progress and is never cut, however long.\n"
    "off = wait for ever."
)


class MeasurementOptions(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.replicates = QSpinBox()
        self.replicates.setRange(int(lowest(self.replicates, "replicates")) - 1, 50)  # 0: auto
        self.replicates.setSpecialValueText("auto")
        self.replicates.setValue(START_REPLICATES)
        self.replicates.setToolTip(
            "RunConfig.replicates (--replicates): rounds, each with a fresh process per arm.\n"
            "auto = rounds go on until the answer is settled, as `tcprof run` without\n"
            "--replicates: at least 3, and only where the arms' order is balanced (4 or 6\n"
            "for 2 arms, at most 12 for 3; see Budget); intervals adjusted for stopping.\n"
            "On a shared machine one process's median moves by up to 20% from the next one's;\n"
            "the speedup interval pairs the arms' processes round by round, so it covers that.\n"
            "1 = one process per arm: faster, but the interval leaves that variation out.\n"
            "The first round compiles into an empty cache (cold), later rounds warm."
        )
        self.budget = QDoubleSpinBox()
        self.budget.setDecimals(0)
        hold_to_bound(self.budget, "budget_s", MAX_BUDGET_S)
        self.budget.setMinimum(0.0)  # 0: none
        self.budget.setSingleStep(10.0)
        self.budget.setSuffix(" s")
        self.budget.setSpecialValueText("none")
        self.budget.setValue(0.0)
        self.budget.setToolTip(BUDGET_TIP)
        self.control = QComboBox()
        for text, value in CONTROL_CHOICES:
            self.control.addItem(text, value)
        self.control.setToolTip(
            "RunConfig.control (--control): A/A controls, identical twins whose true speedup is\n"
            f"1.00. eager adds {CONTROL_LABEL}, a second eager arm; compiled adds a twin of the\n"
            f"first compiled arm (its name + {CONTROL_SUFFIX}), which carries what only compiled\n"
            "processes carry (the compile watcher, inductor's compile workers). A control is\n"
            f"flagged only where equivalence within ±{EQUIVALENCE_MARGIN:.0%} fails (two one-sided tests) and\n"
            "its difference holds after Holm's adjustment over the run's controls: the harness\n"
            "itself differs between identical arms, and an arm inside that bias band is within noise."
        )
        self.threads = QSpinBox()
        self.threads.setRange(int(lowest(self.threads, "threads")) - 1, 1024)  # 0: auto
        self.threads.setSpecialValueText(f"auto ({resolve_threads()})")
        self.threads.setToolTip(
            "RunConfig.threads (--threads): torch.set_num_threads(N) in every arm's worker.\n"
            "auto = the physical cores (arms take turns, one computes at a time)."
        )
        self.warm_cache = QCheckBox("Use my compile caches")
        self.warm_cache.setToolTip(
            "RunConfig.warm_cache (--warm-cache): compile against your usual\n"
            "TORCHINDUCTOR_CACHE_DIR instead of a fresh, empty folder per arm. Faster, but the\n"
            "cold compile time (what a first run in a new environment pays) is not measured."
        )
        self.portable_round = QCheckBox("Measure portable caches")
        self.portable_round.setToolTip(
            "RunConfig.portable_round (--portable-round): with 3 or more rounds, round 2 starts\n"
            "from an empty cache folder loaded with the cold round's portable compile-cache\n"
            "artifacts (torch.compiler.save_cache_artifacts): what a fresh machine given them\n"
            "pays. On the CPU it costs most of a cold compile, so it is off by default."
        )
        self.accuracy = QCheckBox("Accuracy check")
        self.accuracy.setChecked(True)
        self.accuracy.setToolTip(
            "RunConfig.accuracy: after the timed rounds, one untimed process per compiled arm\n"
            "runs one training step per batch size three ways (eager, eager in float64, the arm\n"
            "with torch._inductor.config.fallback_random=True) and compares the outputs and every\n"
            "parameter's gradient, the way torch._dynamo.utils.same does."
        )
        self.apply_advice = QCheckBox("Apply advice after the run")
        self.apply_advice.setToolTip(
            "RunConfig.apply_advice (--apply-advice): after the rounds, every compiled arm whose\n"
            "recompile advice tcprof can apply itself (mark_dynamic=0 for batch-size recompiles)\n"
            "gets a fixed twin, run into the same session: Compile insight then shows the\n"
            "recompiles before and after."
        )
        self.stall_timeout = QDoubleSpinBox()
        self.stall_timeout.setDecimals(1)
        hold_to_bound(self.stall_timeout, "stall_timeout_s", MAX_STALL_TIMEOUT_S)
        self.stall_timeout.setSingleStep(10.0)
        self.stall_timeout.setSuffix(" s")
        self.stall_timeout.setSpecialValueText("off")
        self.stall_timeout.setValue(DEFAULT_STALL_TIMEOUT_S or 0.0)
        self.stall_timeout.setToolTip(STALL_TIMEOUT_TIP)
        form = wrapping(QFormLayout(self))
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Replicates", self.replicates)
        form.addRow("Budget", self.budget)
        form.addRow("Threads", self.threads)
        form.addRow("Stall timeout", self.stall_timeout)
        form.addRow("A/A control", self.control)
        form.addRow("", self.warm_cache)
        form.addRow("", self.portable_round)
        form.addRow("", self.accuracy)
        form.addRow("", self.apply_advice)
        for spin in (self.replicates, self.budget, self.threads, self.stall_timeout):
            spin.valueChanged.connect(self.changed)
        for box in (self.warm_cache, self.portable_round, self.accuracy, self.apply_advice):
            box.toggled.connect(self.changed)
        self.control.currentIndexChanged.connect(self.changed)
        self.replicates.valueChanged.connect(self._budget_applies)

    def _budget_applies(self) -> None:
        """The Budget stops a run of auto Replicates only: off with a number of rounds."""
        self.budget.setEnabled(self.replicates.value() == 0)

    def options(self) -> MeasurementFields:
        """The fields as they are."""
        control = self.control.currentData()
        return MeasurementFields(
            replicates=self.rounds(),  # auto: SetupPanel.config's rule
            stop_early=self.replicates.value() == 0,
            budget_s=self.budget.value() or None,
            control=control if isinstance(control, str) else None,
            threads=self.threads.value() or None,
            warm_cache=self.warm_cache.isChecked(),
            portable_round=self.portable_round.isChecked(),
            accuracy=self.accuracy.isChecked(),
            stall_timeout_s=self.stall_timeout.value() or None,
            apply_advice=self.apply_advice.isChecked(),
        )

    def rounds(self) -> int | None:
        """The Replicates field's rounds; None at auto."""
        return self.replicates.value() or None

    def set_options(self, saved: SavedSetup) -> None:
        """Apply saved options; anything malformed is skipped."""
        replicates = saved.replicates.value
        if saved.stop_early.value is True:
            self.replicates.setValue(0)  # auto: it stopped when settled
        elif saved.replicates.null:
            self.replicates.setValue(0)  # auto
        elif replicates is not None and replicates >= 1:
            self.replicates.setValue(replicates)
        budget = saved.budget_s.value
        if saved.budget_s.null:
            self.budget.setValue(0.0)
        elif budget is not None and budget > 0:
            self.budget.setValue(float(budget))
        threads = saved.threads.value
        if not saved.threads.given or saved.threads.null or (threads is not None and threads >= 0):
            self.threads.setValue(threads or 0)
        stall = saved.stall_timeout_s.value
        if saved.stall_timeout_s.null:
            self.stall_timeout.setValue(0.0)
        elif stall is not None and stall >= 0:
            self.stall_timeout.setValue(float(stall))
        if saved.control.fits:
            index = self.control.findData(saved.control.value or None)
            self.control.setCurrentIndex(max(0, index))
        for cell, box in (
            (saved.warm_cache, self.warm_cache),
            (saved.portable_round, self.portable_round),
            (saved.accuracy, self.accuracy),
            (saved.apply_advice, self.apply_advice),
        ):
            if cell.value is not None:
                box.setChecked(cell.value)
