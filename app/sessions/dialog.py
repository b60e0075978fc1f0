"""The Sessions list: every saved session under the sessions folder, newest first.

Each row: date, status and the best compiled arm's speedup first (they stay in sight), then
model, arms (no wider than WIDE_COLUMN unless dragged: their text is the tooltip) and folder.

Non-modal, so the user can keep it open beside the window. Open one (its plots, tables and
insight come back as they were); compare any two (select both) or one with the session the
window shows; rename, delete (to the system trash where there is one) or show a folder in the
file manager. A folder whose session cannot be read is listed in the error colour with the
reason in place of the model; it can be renamed, deleted or shown, not opened. Opening and
comparing are the window's work, asked for through `openRequested` / `compareRequested` /
`comparePairRequested`; the folder operations are done here (app/sessions/folders.py), and
History… opens the picked session's series (app/sessions/history_view.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.table_text import cell_text, set_header_tip
from tcprof.app.common.theme import error_colour
from tcprof.app.sessions import folders as session_folders
from tcprof.app.sessions.history_view import HistoryDialog
from tcprof.app.sessions.store import SavedSession, list_sessions
from tcprof.app.sessions.team_list import TeamSessions
from tcprof.profiler.folders.home import sessions_dir

HEADER = ["date", "status", "speedup", "model", "arms", "name (folder)"]
COLUMN = {name: c for c, name in enumerate(HEADER)}
SPEEDUP_TIP = (
    "The best speedup of a compiled arm over the baseline (the baseline's step time / the\n"
    "arm's), with its arm and batch size; hover a cell for every compiled arm's"
)
WIDE_COLUMN = 260  # model and arms: wider than this by dragging (the full text is the tooltip)


def _when(started: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if started else "?"


class SessionsDialog(QDialog):
    openRequested = Signal(str)  # session folder
    compareRequested = Signal(str)  # session folder, to compare with the current one
    comparePairRequested = Signal(str, str)  # two session folders (either order)
    renamed = Signal(str, str)  # old folder, new folder
    deleted = Signal(str)  # folder

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Saved sessions")
        self.resize(900, 440)
        self.where = QLabel()
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, len(HEADER))
        self.table.setHorizontalHeaderLabels(HEADER)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)  # a long model name is cut short with …, whole in its tooltip
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        set_header_tip(self.table, COLUMN["speedup"], SPEEDUP_TIP)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)  # the folder's name
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.doubleClicked.connect(lambda _index: self._open())
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.open_button = QPushButton("Open")
        self.open_button.setToolTip("Show this session in the window: plots, summary, insight")
        self.compare_button = QPushButton("Compare")
        self.history_button = QPushButton("History…")
        self.history_button.setToolTip(
            "This session's series over commits and torch versions: its table, the changes\n"
            "beyond noise and their charts (as tcprof history shows them)"
        )
        self.rename_button = QPushButton("Rename…")
        self.rename_button.setToolTip("Rename the session's folder (its name everywhere)")
        self.delete_button = QPushButton("Delete…")
        self.delete_button.setToolTip("Move the session's folder to the system trash")
        self.folder_button = QPushButton("Show in file manager")
        refresh = QPushButton("Refresh")
        buttons = QDialogButtonBox()
        for b in (
            self.open_button,
            self.compare_button,
            self.history_button,
            self.rename_button,
            self.delete_button,
            self.folder_button,
        ):
            buttons.addButton(b, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(refresh, QDialogButtonBox.ButtonRole.ResetRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        self.open_button.clicked.connect(self._open)
        self.compare_button.clicked.connect(self._compare)
        self.history_button.clicked.connect(self.show_history)
        self.rename_button.clicked.connect(self._ask_rename)
        self.delete_button.clicked.connect(self.ask_delete)
        self.folder_button.clicked.connect(self._reveal)
        refresh.clicked.connect(self.refresh)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"color: {error_colour()}")
        self.problem.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(self.where)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.problem)
        self.team = TeamSessions(self.openRequested.emit)  # shown when a store is set
        layout.addWidget(self.team, 1)
        layout.addWidget(buttons)
        self.sessions: list[SavedSession] = []
        self.can_compare = False
        self.question: QMessageBox | None = None  # the open "delete?" question, if any
        self.history: HistoryDialog | None = None
        self.refresh()

    # -- the list ------------------------------------------------------------------------------
    def refresh(self) -> None:
        self.where.setText(
            f"Sessions in {sessions_dir()} (newest first). Select two to compare them."
        )
        self.sessions = list_sessions()
        self.team.refresh()  # in the background
        self.table.setRowCount(len(self.sessions))
        for r, s in enumerate(self.sessions):
            cells = {
                "date": _when(s.started_at),
                "status": s.status_text,
                "speedup": s.speedup,
                "model": s.model,
                "arms": ", ".join(s.arms),
                "name (folder)": s.folder.name,
            }
            tip = f"{s.folder}\n{s.problem}" if s.problem else str(s.folder)
            for name, text in cells.items():
                item = QTableWidgetItem(text)
                item.setToolTip(s.speedups if name == "speedup" and s.speedups else tip)
                if name in ("model", "arms") and text:
                    item.setToolTip(f"{text}\n{tip}")
                if s.problem:
                    item.setForeground(QColor(error_colour()))
                self.table.setItem(r, COLUMN[name], item)
        self._fit_columns()
        if self.sessions:  # through the selection model: selectRow obeys held modifier keys
            self.table.clearSelection()
            self.select_folders([self.sessions[0].folder])
        self._update_buttons()

    def _fit_columns(self) -> None:
        """Each column as wide as its text, but the model's and the arms', which stop at
        WIDE_COLUMN so a long model name never pushes the rest out of sight."""
        self.table.resizeColumnsToContents()
        for name in ("model", "arms"):
            c = COLUMN[name]
            self.table.setColumnWidth(c, min(self.table.columnWidth(c), WIDE_COLUMN))

    def row_text(self, row: int) -> dict[str, str]:
        """A row's cells by column name (tests read them)."""
        return {name: cell_text(self.table, row, c) for name, c in COLUMN.items()}

    def set_can_compare(self, can: bool) -> None:
        """Comparing one session needs another in the window (a finished run or an opened one)."""
        self.can_compare = can
        self._update_buttons()

    def selected_sessions(self) -> list[SavedSession]:
        rows = sorted(i.row() for i in self.table.selectionModel().selectedRows())
        return [self.sessions[r] for r in rows]

    def selected(self) -> SavedSession | None:
        chosen = self.selected_sessions()
        return chosen[0] if len(chosen) == 1 else None

    def select_folder(self, folder: Path) -> None:
        self.table.clearSelection()
        self.select_folders([folder])

    def select_folders(self, folders: list[Path]) -> None:
        model = self.table.selectionModel()
        for r, s in enumerate(self.sessions):
            if s.folder in folders:
                index = self.table.model().index(r, 0)
                flags = model.SelectionFlag.Select | model.SelectionFlag.Rows
                model.select(index, flags)

    def _update_buttons(self) -> None:
        chosen = self.selected_sessions()
        readable = [s for s in chosen if s.problem is None]
        one = len(chosen) == 1
        self.open_button.setEnabled(one and len(readable) == 1)
        self.history_button.setEnabled(one and len(readable) == 1)
        self.folder_button.setEnabled(one)
        self.rename_button.setEnabled(one)
        self.delete_button.setEnabled(bool(chosen))
        pair = len(chosen) == 2 and len(readable) == 2
        with_current = one and len(readable) == 1 and self.can_compare
        self.compare_button.setEnabled(pair or with_current)
        self.compare_button.setText(
            "Compare the two" if len(chosen) == 2 else "Compare with current"
        )
        self.compare_button.setToolTip(
            "Select two sessions to compare them, or one to compare it with the session the "
            "window shows. The newer session is 'after'; changes are judged by their intervals."
        )

    def _say(self, problem: str | None) -> None:
        self.problem.setText(problem or "")
        self.problem.setVisible(bool(problem))

    # -- open and compare ----------------------------------------------------------------------
    def _open(self) -> None:
        chosen = self.selected()
        if chosen is not None and chosen.problem is None:
            self.openRequested.emit(str(chosen.folder))

    def _compare(self) -> None:
        chosen = [s for s in self.selected_sessions() if s.problem is None]
        if len(chosen) == 2 and len(self.selected_sessions()) == 2:
            self.comparePairRequested.emit(str(chosen[0].folder), str(chosen[1].folder))
        elif len(chosen) == 1 and len(self.selected_sessions()) == 1 and self.can_compare:
            self.compareRequested.emit(str(chosen[0].folder))

    def show_history(self) -> HistoryDialog | None:
        """Open the picked session's series (read in the background)."""
        chosen = self.selected()
        if chosen is None or chosen.problem is not None:
            return None
        if self.history is not None:
            self.history.close()
        self.history = HistoryDialog(chosen.folder, self)
        self.history.show()
        return self.history

    # -- rename, delete, reveal ----------------------------------------------------------------
    def _ask_rename(self) -> None:
        chosen = self.selected()
        if chosen is None:
            return
        name, ok = QInputDialog.getText(
            self, "Rename session", "New name of the session's folder:", text=chosen.folder.name
        )
        if ok:
            self.rename_selected(name)

    def rename_selected(self, name: str) -> Path | None:
        chosen = self.selected()
        if chosen is None:
            return None
        try:
            target = session_folders.rename_session(chosen.folder, name)
        except session_folders.FolderError as exc:
            self._say(str(exc))
            return None
        self._say(None)
        self.refresh()
        self.select_folder(target)
        if target != chosen.folder:
            self.renamed.emit(str(chosen.folder), str(target))
        return target

    def ask_delete(self) -> QMessageBox | None:
        """Ask (without blocking) whether to move the selected sessions to the trash."""
        chosen = self.selected_sessions()
        if not chosen:
            return None
        names = ", ".join(s.folder.name for s in chosen)
        self.question = QMessageBox(
            QMessageBox.Icon.Question,
            "Delete sessions",
            f"Move {names} to the trash?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        self.question.button(QMessageBox.StandardButton.Yes).setText("Move to trash")
        folders = [s.folder for s in chosen]
        self._on_yes(self.question, lambda: self._trash(folders))
        return self.question

    @staticmethod
    def _on_yes(box: QMessageBox, action: Callable[[], object]) -> None:
        yes = QMessageBox.StandardButton.Yes
        box.buttonClicked.connect(lambda b: action() if box.standardButton(b) == yes else None)
        box.open()

    def _trash(self, folders: list[Path]) -> None:
        stuck = []
        for folder in folders:
            try:
                if session_folders.move_to_trash(folder):
                    self.deleted.emit(str(folder))
                else:
                    stuck.append(folder)
            except session_folders.FolderError as exc:
                self._say(str(exc))
        self.refresh()
        if stuck:
            self._ask_delete_for_good(stuck)

    def _ask_delete_for_good(self, folders: list[Path]) -> None:
        names = ", ".join(f.name for f in folders)
        self.question = QMessageBox(
            QMessageBox.Icon.Warning,
            "No trash",
            f"There is no trash for {names}. Delete permanently? This cannot be undone.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        self.question.button(QMessageBox.StandardButton.Yes).setText("Delete permanently")
        self._on_yes(self.question, lambda: self._delete_for_good(folders))

    def _delete_for_good(self, folders: list[Path]) -> None:
        for folder in folders:
            try:
                session_folders.delete_permanently(folder)
                self.deleted.emit(str(folder))
            except session_folders.FolderError as exc:
                self._say(str(exc))
        self.refresh()

    def _reveal(self) -> None:
        chosen = self.selected()
        if chosen is not None:
            session_folders.reveal(chosen.folder)
