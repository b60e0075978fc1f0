"""The "Your script" tab of a training script's session: the command that ran, what each arm
compiled and where ("GPT (model.py:118) compiled in place"; "the script's own torch.compile at
train.py:89 ran with backend=inductor"), each step split into compute and the script's own
time (a data-bound script named as such), the loss parity's method and the files the script
wrote. The words and figures are the reports' (profiler/report/sections/script.py), read from
the same session dict; a model file's session has no such tab (the results view hides it).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QPlainTextEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.field_names import in_app_terms
from tcprof.app.common.theme import muted_colour
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections import script as script_section

TITLE = "Your script"
MAX_ROWS_SHOWN = 8  # the split table's height; more rows scroll
COMPILE_NOTES = ("script_compile", "in_place")  # what a compiled arm compiled, and where


class ScriptView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.command = QLabel()
        self.command.setWordWrap(True)
        self.command.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes = QLabel()  # what was compiled and where
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.split = QTableWidget(0, len(script_section.SPLIT_HEADER))
        self.split.setHorizontalHeaderLabels(script_section.SPLIT_HEADER)
        self.split.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.split.verticalHeader().setVisible(False)
        self.split.setToolTip(script_section.EXPLAIN)
        # data-bound notes, the parity method, the files written: as long as they need
        self.after = QPlainTextEdit()
        self.after.setReadOnly(True)
        self.after.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self.after.setStyleSheet(f"color: {muted_colour()}; background: transparent")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        for w in (self.command, self.notes, self.split):
            layout.addWidget(w)
        layout.addWidget(self.after, 1)

    def show_session(self, model: SessionModel) -> bool:
        """Fill the tab from a session; False (and empty) for a model file's session."""
        script = script_section.script_of(model)
        if script is None:
            self.command.clear()
            self.notes.clear()
            self.split.setRowCount(0)
            self.after.clear()
            return False
        try:
            command = script_section.command_text(script)
        except (KeyError, TypeError):
            command = "a script"
        self.command.setText(f"<b>Script:</b> <code>{html.escape(command)}</code>")
        notes = list(dict.fromkeys(script_section.notes(model)))  # once, not per phase
        self.notes.setText(
            "<br>".join(f"• {html.escape(n)}" for n in notes)
            or "What was compiled and where is known after each arm's first step."
        )
        rows = script_section.split_rows(model)
        self.split.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.split.setItem(r, c, item)
        self.split.resizeColumnsToContents()
        rows_px = sum(self.split.rowHeight(r) for r in range(min(len(rows), MAX_ROWS_SHOWN)))
        self.split.setFixedHeight(self.split.horizontalHeader().height() + rows_px + 4)
        after = [*script_section.data_bound(model), *script_section.work_lines(model)]
        parity = script_section.accuracy_note(model)
        if parity:
            after.append(in_app_terms(parity))
        written = script_section.files(model)
        if written:
            after.append(f"The script wrote: {', '.join(written)}")
        after.append(script_section.EXPLAIN)
        self.after.setPlainText("\n\n".join(after))
        return True


def summary_note(model: SessionModel) -> str:
    """The Summary tab's lines for a script's session: what each compiled arm compiled and
    where (once, not per phase), and whether the script is data-bound ("" for a model
    file's)."""
    if script_section.script_of(model) is None:
        return ""
    lines = [
        f"{arm.name}: {note.text}"
        for arm in model.arms
        if arm.index != 0 and arm.script is not None
        for note in arm.script.notes
        if note.kind in COMPILE_NOTES
    ]
    lines = list(dict.fromkeys([*lines, *script_section.data_bound(model)]))
    return "\n".join(lines) + (
        f"\n(the model, compute and own time: the {TITLE} tab)" if lines else ""
    )
