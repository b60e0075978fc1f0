"""The Sessions list: every saved session under the sessions folder, newest first.

Non-modal, so the user can keep it open beside the window: open one (its plots, tables and
insight come back as they were), compare one with the session the window shows (before vs
after a code change), or open its folder. A folder whose session cannot be read is listed in
the error colour with the reason in place of the model, and only its folder can be opened. It only lists and asks; the window does the work
through the `openRequested` / `compareRequested` signals.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.session_store import SavedSession, list_sessions
from app.theme import error_colour
from profiler.paths import sessions_dir

HEADER = ["date", "model", "arms", "status", "folder"]


def _when(started: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if started else "?"


class SessionsDialog(QDialog):
    openRequested = Signal(str)  # session folder
    compareRequested = Signal(str)  # session folder, to compare with the current one

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Saved sessions")
        self.resize(820, 420)
        self.where = QLabel()
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, len(HEADER))
        self.table.setHorizontalHeaderLabels(HEADER)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(lambda _index: self._emit(self.openRequested))
        self.table.itemSelectionChanged.connect(self._update_buttons)
        buttons = QDialogButtonBox()
        self.open_button = QPushButton("Open")
        self.open_button.setToolTip("Show this session in the window: plots, summary, insight")
        self.compare_button = QPushButton("Compare with current…")
        self.compare_button.setToolTip(
            "Per arm and batch size: the change in median step time and peak memory from this "
            "session (before) to the one the window shows (after)"
        )
        self.folder_button = QPushButton("Open folder")
        refresh = QPushButton("Refresh")
        for b in (self.open_button, self.compare_button, self.folder_button):
            buttons.addButton(b, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(refresh, QDialogButtonBox.ButtonRole.ResetRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        self.open_button.clicked.connect(lambda: self._emit(self.openRequested))
        self.compare_button.clicked.connect(lambda: self._emit(self.compareRequested))
        self.folder_button.clicked.connect(self._open_folder)
        refresh.clicked.connect(self.refresh)
        layout = QVBoxLayout(self)
        layout.addWidget(self.where)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.sessions: list[SavedSession] = []
        self.can_compare = False
        self.refresh()

    def refresh(self) -> None:
        self.where.setText(f"Sessions in {sessions_dir()} (newest first)")
        self.sessions = list_sessions()
        self.table.setRowCount(len(self.sessions))
        for r, s in enumerate(self.sessions):
            cells = [_when(s.started_at), s.model, ", ".join(s.arms), s.status, s.folder.name]
            tip = f"{s.folder}\n{s.problem}" if s.problem else str(s.folder)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                if s.problem:
                    item.setForeground(QColor(error_colour()))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        if self.sessions:
            self.table.selectRow(0)
        self._update_buttons()

    def set_can_compare(self, can: bool) -> None:
        """Compare needs a session in the window (a finished run or an opened session)."""
        self.can_compare = can
        self._update_buttons()

    def selected(self) -> SavedSession | None:
        rows = self.table.selectionModel().selectedRows()
        return self.sessions[rows[0].row()] if rows else None

    def select_folder(self, folder: Path) -> None:
        for r, s in enumerate(self.sessions):
            if s.folder == folder:
                self.table.selectRow(r)

    def _update_buttons(self) -> None:
        chosen = self.selected()
        readable = chosen is not None and chosen.problem is None
        self.open_button.setEnabled(readable)
        self.folder_button.setEnabled(chosen is not None)
        self.compare_button.setEnabled(readable and self.can_compare)

    def _emit(self, signal) -> None:
        chosen = self.selected()
        if chosen is None or chosen.problem is not None:
            return  # an unreadable session: its row says why
        if signal is not self.compareRequested or self.can_compare:
            signal.emit(str(chosen.folder))

    def _open_folder(self) -> None:
        chosen = self.selected()
        if chosen is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(chosen.folder)))
