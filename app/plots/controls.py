"""The small row of plot controls beside the legend: the x axis, the section shown, what the
middle plot shows, smoothing, a log y axis for step time, and a button that shows everything
again after a zoom.

Plain Qt widgets and their signals; `LivePlots` acts on them.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QWidget,
)

from tcprof.app.common.theme import muted_colour
from tcprof.app.plots.plot_choices import MIDDLE_LABELS, SCRIPT_ONLY
from tcprof.app.plots.series import Section
from tcprof.app.plots.smoothing import MAX_WEIGHT
from tcprof.app.plots.x_axis import LABELS, MODES, ROW, SECTION, labels
from tcprof.profiler.protocol.event_text import script_sweep

LATEST = "running"
X_TIP = (
    "What the plots' x axis counts:\n"
    "{section}: every arm from the first (compiling) step of {one}, "
    "so the same x is the same step of the same phase;\n"
    "wall-clock time: seconds since the run began, compiles drawn as spans;\n"
    "{row}: {every} one after another, by step"
)
SECTION_TIP = "Which {phase} '{section}' shows: the one running, or one"
MIDDLE_TIP = (
    "What the middle plot shows: throughput (samples/s; a script's in its unit: tokens/s\n"
    "where its model is given token ids), or for a training script's run its\n"
    "loss at each step (what it called backward on) or its own time between steps (data\n"
    "loading, logging, evaluation: what compiling does not speed up)"
)
NOT_A_SCRIPT = "A training script's runs only: a model file's steps carry no loss"


class PlotControls(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.x_axis = QComboBox()
        for mode in MODES:
            self.x_axis.addItem(LABELS[mode], mode)
        self.section = QComboBox()
        self.section.addItem(LATEST, None)
        self.set_script(None)
        self.middle = QComboBox()
        for key, label in MIDDLE_LABELS.items():
            self.middle.addItem(label, key)
        self.middle.setToolTip(MIDDLE_TIP)
        # narrow combos (their lists open at full width): the row fits beside the setup at 1024
        short = QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        for combo, letters in ((self.x_axis, 12), (self.section, 10), (self.middle, 8)):
            combo.setSizeAdjustPolicy(short)
            combo.setMinimumContentsLength(letters)
        self.smoothing = QDoubleSpinBox()
        self.smoothing.setRange(0.0, MAX_WEIGHT)
        self.smoothing.setSingleStep(0.1)
        self.smoothing.setDecimals(2)
        self.smoothing.setSpecialValueText("off")
        self.smoothing.setKeyboardTracking(False)
        self.smoothing.setToolTip(
            "Exponential moving average of step time and throughput (0: off, 0.99: smoothest), "
            "as in W&B and TensorBoard; the raw points stay, faint, under the smoothed line"
        )
        self.log_y = QCheckBox("log y")
        self.log_y.setToolTip("A logarithmic step-time axis")
        self.fit = QToolButton()
        self.fit.setText("fit")
        self.fit.setToolTip(
            "Show the whole x range again after a zoom (the wheel zooms x; drag pans it)"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 8, 0)
        layout.setSpacing(4)
        for label, widget in (
            ("x", self.x_axis),
            ("", self.section),
            ("", self.middle),
            ("smooth", self.smoothing),
            ("", self.log_y),
            ("", self.fit),
        ):
            if label:
                text = QLabel(label)
                text.setStyleSheet(f"color: {muted_colour()};")
                layout.addWidget(text)
            layout.addWidget(widget)
        for widget in (
            self.x_axis,
            self.section,
            self.middle,
            self.smoothing,
            self.log_y,
            self.fit,
        ):
            widget.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.section.setVisible(self.mode() == SECTION)

    def set_script(self, script: object) -> None:
        """Name the x-axis choices for a model file's run (None) or a script's (its
        ScriptSource or dict): a script without a sweep has no batch size, its steps are
        'step' and its sections its rounds."""
        names = labels(script)
        for i in range(self.x_axis.count()):
            self.x_axis.setItemText(i, names[str(self.x_axis.itemData(i))])
        sweep = script_sweep(script) if script is not None else None
        if script is not None and not sweep:
            one, every, phase = "one round", "every round", "round"
        else:
            noun = f"{sweep} value" if sweep else "batch size"
            one, every, phase = f"one {noun}", f"every {noun} and round", f"{noun} (and round)"
        words = {"section": names[SECTION], "row": names[ROW], "one": one, "every": every}
        words["phase"] = phase
        self.x_axis.setToolTip(X_TIP.format(**words))
        self.section.setToolTip(SECTION_TIP.format(**words))

    def middle_key(self) -> str:
        return str(self.middle.currentData())

    def show_middle(self, key: str, script: bool) -> None:
        """Show the middle plot's choice; a script's loss and own time are offered only for a
        script's run (a model file's steps carry neither)."""
        self.middle.blockSignals(True)
        try:
            for i in range(self.middle.count()):
                item = self.middle.model().item(i)  # type: ignore[attr-defined]
                if self.middle.itemData(i) in SCRIPT_ONLY:
                    item.setEnabled(script)
                    item.setToolTip("" if script else NOT_A_SCRIPT)
            self.middle.setCurrentIndex(self.middle.findData(key))
        finally:
            self.middle.blockSignals(False)

    def mode(self) -> str:
        return str(self.x_axis.currentData())

    def chosen_section(self) -> Section | None:
        """The section chosen (None: the one running)."""
        return _section(self.section.currentData())

    def set_sections(self, sections: list[tuple[Section, str]], chosen: Section | None) -> None:
        """The sections there are to choose from (after 'running')."""
        have = [_section(self.section.itemData(i)) for i in range(1, self.section.count())]
        keys = [key for key, _label in sections]
        self.section.blockSignals(True)
        try:
            if have != keys:
                while self.section.count() > 1:
                    self.section.removeItem(1)
                for (rep, bs), label in sections:
                    self.section.addItem(label, f"{rep}:{bs}")  # Qt keeps a string as it is
            index = keys.index(chosen) + 1 if chosen in keys else 0
            self.section.setCurrentIndex(index)
        finally:
            self.section.blockSignals(False)


def _section(data: object) -> Section | None:
    if not isinstance(data, str) or ":" not in data:
        return None
    rep, bs = data.split(":")
    return int(rep), int(bs)
