"""The model part of the setup panel: file, the model or factory in it, and its input shape.

The GUI never imports the user's file (it may import torch, or crash): a short-lived engine
worker inspects it in the background (`tcprof.profiler.process.inspection.inspect_model`) and answers with
the classes and factories it defines, the chosen model's parameter count and the inferred
input. Answers are cached per file version, and an answer for a file no longer selected is
dropped. The worker builds the model as a run will, so a model that cannot be built (a
constructor that wants arguments) makes the setup invalid, with the fix in the window's terms.
Once inspected, the file is watched (model_watch.py) and inspected again when it changes.

Inspecting runs the file's code (an import, and the factory expression evaluated), so a file is
inspected only once it is trusted. The rule: a model the user picked in this window (File >
Open, a dropped file, an example, a recent file, `tcprof gui MODEL.py`, or the last model they
had trusted at start-up) is trusted and inspected at once; a model named by a session file (an
opened session, a recovered one, the Sessions list, `tcprof gui SESSION.json`) is shown as text
only, path, model, factory and input as the file says, until the user presses Inspect (or Run)
and confirms. Until then the file is neither imported nor watched.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QWidget,
)

from tcprof.app.common.background import BackgroundCalls
from tcprof.app.common.theme import error_colour, muted_colour
from tcprof.app.setup.model_answer import build_problem, cached, error_line, keep, path_label
from tcprof.app.setup.model_watch import ModelFileWatch
from tcprof.app.setup.narrow import text_wide, wrapping
from tcprof.profiler.config import ConfigError, ModelSource, parse_input_shape
from tcprof.profiler.process.inspected import Inspection
from tcprof.profiler.process.inspection import inspect_model

RELOADED_MESSAGE_MS = 10_000
SHAPE_PLACEHOLDER = "inferred"


class ModelPicker(QWidget):
    changed = Signal()  # anything that affects validity
    openRequested = Signal()
    inspectRequested = Signal()  # Inspect pressed on a model not yet trusted: confirm first
    inspected = Signal()  # an inspection answered (or was answered from the cache)
    fileChosen = Signal(str)  # a file picked in the File list: the user's choice, as Open…
    reinspected = Signal(str)  # the file changed on disk and was inspected again: the message

    def __init__(self, background: BackgroundCalls | None, parent: QWidget | None = None):
        super().__init__(parent)
        self._background = background
        self._generation = 0
        self.inspection: Inspection | None = None  # the last answer, read once
        self.inspecting = False
        self.trusted = False  # whether the current file may be inspected (see the module doc)
        self._reloading = False  # the inspection under way is for a change on disk
        self._inspected_shape: str | None = None  # the input shape the last answer is for
        self._current = ""  # the file chosen (the list shows another while one is picked)
        self.watch = ModelFileWatch(self)
        self.watch.changedOnDisk.connect(self._on_changed_on_disk)
        self.path = QComboBox()
        self.path.setMinimumContentsLength(6)
        self.path.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.path.setToolTip(
            "The Python file that defines the model (an nn.Module class or a factory).\n"
            "It is imported only inside worker processes, never in this window.\n"
            "Drop a .py file on the window to open it."
        )
        self.path.activated.connect(lambda i: self._choose(self.path.itemData(i)))
        browse = self.browse = text_wide(QPushButton("Open…"))
        browse.setToolTip("Open a model file (Ctrl+O)")
        browse.clicked.connect(self.openRequested)
        self.inspect_button = QPushButton("Inspect…")
        self.inspect_button.setToolTip(
            "Inspect the model file: a worker process imports it (running its code) and\n"
            "evaluates the factory expression. Asks first: the file came from a session."
        )
        self.inspect_button.clicked.connect(self.inspectRequested)
        self.inspect_button.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.path, 1)
        row.addWidget(self.inspect_button)
        row.addWidget(browse)
        self.candidate = QComboBox()
        self.candidate.setToolTip(
            "Which nn.Module subclass or factory function in the file to build.\n"
            "Automatic picks a zero-argument model or a make_model()-style factory."
        )
        self.candidate.activated.connect(lambda _i: self._inspect())
        self.factory = QLineEdit()
        self.factory.setPlaceholderText("e.g. GPT(GPTConfig(n_layer=2))")
        self.factory.setToolTip(
            "A Python expression evaluated in the file's namespace that returns the\n"
            "torch.nn.Module to train; overrides the choice above."
        )
        self.factory.editingFinished.connect(self._inspect)
        self.input_shape = QLineEdit()
        self.input_shape.setPlaceholderText(SHAPE_PLACEHOLDER)
        self.input_shape.setToolTip(
            "Per-sample input shape, without the batch dimension: 10 -> torch.randn(B, 10);\n"
            "3x64x64 -> torch.randn(B, 3, 64, 64); int:128 -> torch.randint(..., (B, 128)).\n"
            "Empty: inferred from the model's first layer (nn.Linear in_features, ...)."
        )
        self.input_shape.textChanged.connect(self._validate_shape)
        self.input_shape.editingFinished.connect(self._inspect_new_shape)
        self.shape_error = QLabel()
        self.shape_error.setStyleSheet(f"color: {error_colour()}")
        self.shape_error.setWordWrap(True)
        self.shape_error.hide()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(self.summary.textInteractionFlags())
        form = wrapping(QFormLayout(self))
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("File", row)
        form.addRow("Model", self.candidate)
        form.addRow("", self.summary)
        form.addRow("Factory", self.factory)
        form.addRow("Input shape", self.input_shape)
        form.addRow("", self.shape_error)
        self._recent: list[str] = []

    # -- file -----------------------------------------------------------------------------------
    def current_path(self) -> str:
        return self._current

    def set_recent(self, paths: list[str]) -> None:
        self._recent = list(paths)
        self._fill_paths(self.current_path())

    def _fill_paths(self, current: str) -> None:
        self._current = current or ""
        self.path.blockSignals(True)
        self.path.clear()
        for p in [current, *[r for r in self._recent if r != current]]:
            if p:
                self.path.addItem(path_label(p), p)
                self.path.setItemData(self.path.count() - 1, p, 3)  # tooltip role
        self.path.setCurrentIndex(0)
        self.path.blockSignals(False)

    def _choose(self, path: str) -> None:
        """A file picked in the list: the user's choice, trusted and inspected as a file
        opened with Open… is (the window makes it the most recent file). The current one
        picked again is no change, so an untrusted file stays untrusted. The list has already
        moved to the file picked when this runs: the file chosen until now is `_current`."""
        if path and path != self._current:
            self.set_path(path)
            self.fileChosen.emit(path)
        else:
            self._fill_paths(self._current)  # the list shows the current file again

    def set_path(
        self,
        path: str,
        model: str | None = None,
        factory: str = "",
        shape: str = "",
        trusted: bool = True,
    ) -> None:
        """Select a file (and optionally its model/factory/shape); inspect it if trusted,
        otherwise only show it (see the module doc)."""
        self._fill_paths(path)
        self.candidate.clear()
        self.candidate.addItem("automatic", None)
        if model:
            self.candidate.addItem(model, model)
            self.candidate.setCurrentIndex(1)
        self.factory.setText(factory)
        self.input_shape.setText(shape)
        self.input_shape.setPlaceholderText(SHAPE_PLACEHOLDER)  # the last file's is not this one's
        self.summary.clear()
        self.inspection = None
        self.trusted = trusted
        self._reloading = False
        self.watch.stop()
        self.inspect_button.setVisible(not trusted)
        if trusted:
            self._inspect()
        else:
            self._show_untrusted()

    def needs_trust(self) -> bool:
        """Whether running or inspecting the current file needs the user's word first."""
        return bool(self.current_path()) and not self.trusted

    def trust(self) -> None:
        """The user confirmed: inspect the current file from now on (`inspected` follows)."""
        self.trusted = True
        self.inspect_button.hide()
        self._inspect()

    def _show_untrusted(self) -> None:
        self._generation += 1  # an answer still on its way is for a file no longer trusted
        self.inspecting = False
        self.watch.stop()
        self.summary.setStyleSheet(f"color: {muted_colour()}")
        self.summary.setText(
            "Not inspected: opened from a session. Inspect (or Run) imports this file and runs "
            "its code, after you confirm."
        )
        self.changed.emit()

    # -- inspection -----------------------------------------------------------------------------
    def _inspect(self) -> None:
        path = self.current_path()
        if not path or not self.trusted:
            return
        self._generation += 1
        generation = self._generation
        self._inspected_shape = self._valid_shape()
        source = ModelSource(
            path,
            model=self.candidate.currentData(),
            factory=self.factory.text().strip() or None,
            input_shape=self._inspected_shape or None,
        )
        if not os.path.isfile(path):
            missing = {"error": {"kind": "load", "message": f"no such file: {path}"}}
            self._show_answer(generation, Inspection.of(missing))
            return
        kept = cached(source)
        if kept is not None or self._background is None:
            self._show_answer(generation, kept or Inspection.of({}))
            return
        self.inspecting = True
        self.summary.setStyleSheet(f"color: {muted_colour()}")
        self.summary.setText("inspecting in a worker process…")
        self.changed.emit()

        def done(answer: dict[str, Any]) -> None:  # the worker's model_info, read once here
            inspection = Inspection.of(answer)
            keep(source, inspection)
            self._show_answer(generation, inspection)

        # the step probe prices the run estimate of a model never run before
        self._background.submit(partial(inspect_model, probe=True), done, source)

    def _valid_shape(self) -> str:
        """The input shape as typed, or '' while it is empty or malformed."""
        return "" if self.shape_error.text() else self.input_shape.text().strip()

    def _inspect_new_shape(self) -> None:
        """The inspection builds the inputs a run will: a new shape is inspected again."""
        if self.inspection is not None and self._valid_shape() != self._inspected_shape:
            self._inspect()

    def _on_changed_on_disk(self, path: str) -> None:
        if path == self.current_path() and self.trusted:
            self._reloading = True
            self._inspect()

    def _show_answer(self, generation: int, inspection: Inspection) -> None:
        if generation != self._generation:
            return  # an answer for an earlier choice
        self.inspecting = False
        self.inspection = inspection
        if self.trusted and os.path.isfile(self.current_path()):
            self.watch.watch(self.current_path())
        chosen = self.candidate.currentData()
        self.candidate.clear()
        self.candidate.addItem(f"automatic ({inspection.chosen or '?'})", None)
        for c in inspection.candidates:
            label = f"{c.name}{c.signature or ''}  [{c.kind}]"
            self.candidate.addItem(label, c.name)
        if chosen:
            index = self.candidate.findData(chosen)
            if index < 0:
                self.candidate.addItem(chosen, chosen)
                index = self.candidate.count() - 1
            self.candidate.setCurrentIndex(index)
        error = inspection.error
        self.input_shape.setPlaceholderText(
            f"inferred: {inspection.input}" if inspection.input and not error else SHAPE_PLACEHOLDER
        )
        if error:
            self.summary.setStyleSheet(f"color: {error_colour()}")
            self.summary.setText(build_problem(error) or error_line(error))
        elif inspection.answered:
            params = inspection.params
            self.summary.setStyleSheet("")
            self.summary.setText(
                f"{inspection.chosen} · {params:,} parameters · input {inspection.input}"
                if params is not None
                else inspection.chosen or ""
            )
        else:
            self.summary.setText("")
        self.changed.emit()
        self.inspected.emit()
        if self._reloading:
            self._reloading = False
            self._say_reloaded()

    def _say_reloaded(self) -> None:
        """'model.py changed on disk: re-inspected', in the window's status bar."""
        text = f"{Path(self.current_path()).name} changed on disk: re-inspected"
        self.reinspected.emit(text)
        window = self.window()
        if isinstance(window, QMainWindow):
            window.statusBar().showMessage(text, RELOADED_MESSAGE_MS)

    # -- validation -----------------------------------------------------------------------------
    def _validate_shape(self) -> None:
        text = self.input_shape.text().strip()
        message = ""
        if text:
            try:
                parse_input_shape(text)
            except ConfigError as exc:
                message = str(exc)
        self.shape_error.setText(message)
        self.shape_error.setVisible(bool(message))
        self.changed.emit()

    def error(self) -> str | None:
        """Why the model cannot run as chosen, or None."""
        if not self.current_path():
            return "choose a model file"
        if self.shape_error.text():
            return self.shape_error.text()
        error = self.inspection.error if self.inspection else None
        if error and error.kind == "syntax":
            return f"the model file has a {error_line(error)}"
        if error and error.stage == "input" and self._valid_shape() != self._inspected_shape:
            return None  # an answer for another shape: Enter in the field inspects this one
        return build_problem(error)

    def source(self) -> ModelSource:
        return ModelSource(
            self.current_path(),
            model=self.candidate.currentData(),
            factory=self.factory.text().strip() or None,
            input_shape=self.input_shape.text().strip() or None,
        )
