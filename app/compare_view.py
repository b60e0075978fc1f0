"""Two sessions side by side: per arm and batch size, the change in median step time and in
peak memory, with its direction (better green, worse red, unchanged grey).

The numbers and the direction come from the engine's `compare_sessions` (the same as
`tcprof compare`), which calls a change within the steps' spread (or 2%) "unchanged" so noise
is not sold as progress.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.table_text import table_text
from app.theme import is_dark, muted_colour
from profiler.compare import compare_sessions, method_note
from profiler.summary import fmt_mb, fmt_ms

HEADER = [
    "arm",
    "bs",
    "median before",
    "median after",
    "time change",
    "time",
    "train MB before",
    "train MB after",
    "memory change",
    "memory",
]


def direction_colour(direction: str) -> QColor:
    if direction == "better":
        return QColor("#5fd35f" if is_dark() else "#1b7f1b")
    if direction == "worse":
        return QColor("#ff6b6b" if is_dark() else "#b00020")
    return QColor(muted_colour())


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f}%"


def comparison_cells(row: dict[str, Any]) -> list[str]:
    return [
        str(row["arm"]),
        str(row["batch_size"]),
        fmt_ms(row["median_ms_before"]),
        fmt_ms(row["median_ms_after"]),
        _pct(row["time_change"]),
        row["time_direction"],
        fmt_mb(row["peak_mb_before"]),
        fmt_mb(row["peak_mb_after"]),
        _pct(row["memory_change"]),
        row["memory_direction"],
    ]


class CompareDialog(QDialog):
    def __init__(
        self,
        before: dict[str, Any],
        after: dict[str, Any],
        before_label: str,
        after_label: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare sessions")
        self.resize(900, 360)
        self.compared = compare_sessions(before, after)
        title = QLabel(
            f"<b>before</b>: {_escape(before_label)}<br><b>after</b>: {_escape(after_label)}"
        )
        title.setWordWrap(True)
        text = (
            "Change = after / before − 1 for median step time and training memory (the steady "
            "peak of a training step). Lower is better for both; a change within the measured "
            "spread (or 2%) is called unchanged."
        )
        different = method_note(before, after)
        note = QLabel(text + (f" Note: {different}." if different else ""))
        note.setWordWrap(True)
        self.table = QTableWidget(len(self.compared), len(HEADER))
        self.table.setHorizontalHeaderLabels(HEADER)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        for r, row in enumerate(self.compared):
            for c, text in enumerate(comparison_cells(row)):
                item = QTableWidgetItem(text)
                if HEADER[c] in ("time", "time change"):
                    item.setForeground(direction_colour(row["time_direction"]))
                elif HEADER[c] in ("memory", "memory change"):
                    item.setForeground(direction_colour(row["memory_direction"]))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        empty = QLabel("The sessions share no arm and batch size to compare.")
        empty.setVisible(not self.compared)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(note)
        layout.addWidget(empty)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def rows(self) -> list[list[str]]:
        return table_text(self.table)


def _escape(text: str) -> str:
    import html

    return html.escape(text)
