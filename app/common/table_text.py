"""The text of a QTableWidget, row by row (tests and exports read tables through it)."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget


def table_text(table: QTableWidget) -> list[list[str]]:
    return [
        [table.item(r, c).text() if table.item(r, c) else "" for c in range(table.columnCount())]
        for r in range(table.rowCount())
    ]
