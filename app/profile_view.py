"""The "Profile" tab: top operators by self time from the optional torch.profiler pass.

The pass runs after the measured steps, separately, so the profiler's overhead never enters the
reported timings; its numbers explain *where* a step's time goes (per arm and batch size), not
how long a step takes. The Chrome/Perfetto trace it wrote is one click away.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.table_text import table_text
from app.theme import arm_colour

HEADER = ["arm", "bs", "operator", "calls/step", "self ms/step", "total ms/step"]
EMPTY = (
    'No torch.profiler pass in this session: set "torch.profiler steps" above 0 in the setup '
    "panel (a separate pass after the measured steps; it does not change the timings)."
)


def profile_rows(session: dict[str, Any]) -> list[tuple[int, str, int, dict[str, Any], str]]:
    """(arm index, arm name, batch size, op, trace path) for every top operator recorded."""
    rows = []
    for i, arm in enumerate(session.get("arms") or []):
        for r in arm.get("results") or []:
            prof = r.get("profile") or {}
            for op in prof.get("top_ops") or []:
                rows.append((i, str(arm.get("name")), r.get("batch_size"), op, prof.get("path")))
    return rows


def _num(value: Any, digits: int = 3) -> str:
    return f"{value:.{digits}f}" if isinstance(value, (int, float)) else "-"


class ProfileView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = QLabel(EMPTY)
        self.note.setWordWrap(True)
        self.table = QTableWidget(0, len(HEADER))
        self.table.setHorizontalHeaderLabels(HEADER)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.open_trace = QPushButton("Open trace folder")
        self.open_trace.setToolTip(
            "The Chrome/Perfetto traces (torch.profiler export_chrome_trace): open them in "
            "chrome://tracing or ui.perfetto.dev"
        )
        self.open_trace.clicked.connect(self._open_folder)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.open_trace)
        self._trace: str | None = None
        self.show_session({"arms": []})

    def show_session(self, session: dict[str, Any]) -> None:
        rows = profile_rows(session)
        self.table.setRowCount(len(rows))
        for r, (arm_index, name, bs, op, path) in enumerate(rows):
            cells = [
                name,
                str(bs),
                str(op.get("name")),
                str(op.get("calls", "-")),
                _num(op.get("self_ms_per_step")),
                _num(op.get("total_ms_per_step")),
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 0:
                    item.setForeground(arm_colour(arm_index))
                if path:
                    item.setToolTip(f"trace: {path}")
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self._trace = next((p for *_, p in rows if p), None)
        self.open_trace.setVisible(self._trace is not None)
        steps = {
            (r.get("profile") or {}).get("steps")
            for a in session.get("arms") or []
            for r in a.get("results") or []
            if r.get("profile")
        }
        self.note.setText(
            f"Top operators by self time per step, from a separate torch.profiler pass of "
            f"{', '.join(str(s) for s in sorted(steps, key=str))} step(s) per arm and batch size "
            "after the measured steps (not part of the timings)."
            if rows
            else EMPTY
        )

    def rows(self) -> list[list[str]]:
        return table_text(self.table)

    def _open_folder(self) -> None:
        if self._trace:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(self._trace).parent)))
