"""The text of a QTableWidget, row by row (tests and exports read tables through it), and its
header's tooltips. A cell or header item that was never set is None in Qt: read as ""."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget, QTableWidgetItem


def table_text(table: QTableWidget) -> list[list[str]]:
    return [
        [cell_text(table, r, c) for c in range(table.columnCount())]
        for r in range(table.rowCount())
    ]


def cell_text(table: QTableWidget, row: int, column: int) -> str:
    return _text(table.item(row, column))


def set_header_tip(table: QTableWidget, column: int, tip: str) -> None:
    """The column header's tooltip (its item exists once setHorizontalHeaderLabels named it)."""
    item = table.horizontalHeaderItem(column)
    if item is not None:
        item.setToolTip(tip)


def _text(item: QTableWidgetItem | None) -> str:
    return item.text() if item else ""
