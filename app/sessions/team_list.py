"""The team store's sessions in the Sessions list: a group of its own below the local sessions,
marked with the store's address, shown only when a store is set (TCPROF_STORE). The store is
read off the GUI thread (app/common/background.py): its sessions are cached under TCPROF_HOME
(profiler/team_store/), then listed from the cache as the local ones are, so a slow or
unreachable server never freezes the window; one that cannot be reached is a line in the group.
Opening a row opens its cached copy, as a local session opens."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.background import BackgroundCalls, failure_of
from tcprof.app.common.table_text import cell_text
from tcprof.app.sessions.store import SavedSession, list_sessions
from tcprof.profiler.team_store.address import StoreError, store_uri

HEADER = ["date", "speedup", "model", "arms", "name (in the store)"]


def read_store(uri: str) -> list[SavedSession] | str:
    """The store's sessions, newest first (only the new ones downloaded), or why it cannot be
    read: one line. Blocking: run it in the background."""
    from tcprof.profiler.team_store.reading import StoreReader

    try:
        reader = StoreReader(uri)
        reader.sync()
    except StoreError as exc:
        return str(exc)
    return [s for s in list_sessions(reader.cache) if s.problem is None]


class TeamSessions(QWidget):
    """The store's group: `refresh()` starts a read and returns at once; `on_open(folder)` is
    called with a row's cached folder on a double click."""

    def __init__(self, on_open: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.on_open = on_open
        self.uri: str | None = None
        self.sessions: list[SavedSession] = []
        self.calls = BackgroundCalls(self)
        self.title = QLabel()
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, len(HEADER))
        self.table.setHorizontalHeaderLabels(HEADER)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.doubleClicked.connect(lambda index: self._open(index.row()))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
        self.hide()

    def refresh(self) -> None:
        self.uri = store_uri()
        self.setVisible(self.uri is not None)
        if self.uri is None:
            return
        self.title.setText(f"Team store {self.uri}: reading…")
        self.calls.submit(read_store, self._show, self.uri)

    def busy(self) -> bool:
        return self.calls.busy()

    def _show(self, found: Any) -> None:
        if isinstance(found, dict):  # an unexpected failure, said as one line
            failure = failure_of(found)
            found = failure.message if failure else "an answer that is not a list of sessions"
        if isinstance(found, str):
            self.title.setText(f"Team store {self.uri}: {found}")
            self.sessions = []
        else:
            count = f"{len(found)} session{'s' if len(found) != 1 else ''}"
            self.title.setText(f"Team store {self.uri}: {count} (double-click to open)")
            self.sessions = found
        self.table.setRowCount(len(self.sessions))
        for r, s in enumerate(self.sessions):
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(s.started_at or 0))
            cells = [when, s.speedup, s.model, ", ".join(s.arms), s.folder.name]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"from the team store, cached in {s.folder}")
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()

    def row_text(self, row: int) -> dict[str, str]:
        return {name: cell_text(self.table, row, c) for c, name in enumerate(HEADER)}

    def _open(self, row: int) -> None:
        if 0 <= row < len(self.sessions):
            self.on_open(str(self.sessions[row].folder))

    def folder(self, row: int) -> Path:
        return self.sessions[row].folder

    def shutdown(self) -> None:
        self.calls.shutdown()
