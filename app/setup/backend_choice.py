"""The arm dialog's backend list: grouped (recommended, debug, other, testing), each backend with
its one-line description as a tooltip and under the list (profiler/config/backends.py says which is
which). Group headers are items that cannot be chosen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox

from tcprof.profiler.config.backends import (
    GROUP_DESCRIPTIONS,
    GROUP_TITLES,
    describe_backend,
    group_backends,
)

HEADER_ROLE = Qt.ItemDataRole.UserRole + 1  # True on a group's header item


def fill_backends(combo: QComboBox, names: list[str], current: str) -> None:
    """Put names in combo by group and select current (typed in if it is not listed)."""
    model = QStandardItemModel(combo)
    bold = QFont(combo.font())
    bold.setBold(True)
    for group, backends in group_backends(names):
        header = QStandardItem(GROUP_TITLES[group])
        header.setFlags(Qt.ItemFlag.NoItemFlags)  # neither selectable nor enabled
        header.setFont(bold)
        header.setToolTip(GROUP_DESCRIPTIONS[group])
        header.setData(True, HEADER_ROLE)
        model.appendRow(header)
        for backend in backends:
            item = QStandardItem(backend.name)
            if backend.description:
                item.setToolTip(backend.description)
            model.appendRow(item)
    combo.setModel(model)
    index = backend_index(combo, current)
    if index >= 0:
        combo.setCurrentIndex(index)
    else:
        combo.setEditText(current)


def backend_index(combo: QComboBox, name: str) -> int:
    """The row of backend name (never a header's), or -1."""
    for row in range(combo.count()):
        if combo.itemText(row) == name and not combo.itemData(row, HEADER_ROLE):
            return row
    return -1


def description(name: str) -> str:
    backend = describe_backend(name.strip())
    return backend.description or "no description: a backend tcprof does not know"
