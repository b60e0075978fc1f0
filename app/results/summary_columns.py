"""The Summary's column choice: right-click the header to hide or show a column, remembered
across restarts. By default the columns a speedup decision needs least (p90, samples/s) are
hidden so that the rest (memory, accuracy, recompiles and breaks included) fit at 1280 px; a
cell too long for its column is elided, its whole text in its tooltip."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMenu, QTableWidget

from tcprof.app.common.settings import Preferences

DEFAULT_HIDDEN = ("p90 ms", "samples/s")
MAX_COLUMN_PX = 190  # wider cells elide: "0.42x (one round: no interval yet)" stays readable
# Columns whose cells run long with words a tooltip can hold ("ok (9/10 blocks contended)").
NARROW_PX = {"status": 100, "speedup [95% CI]": 140, "verdict": 110, "break-even cold/warm": 110}
ALWAYS_SHOWN = ("arm", "bs")


def two_lines(label: str) -> str:
    """A long header label broken at its middle space, so its column is as wide as its
    cells, not its title ("compile s" over "cold/warm"); `label_of` undoes it."""
    if len(label) <= 6 or " " not in label:
        return label
    spaces = [i for i, ch in enumerate(label) if ch == " "]
    cut = min(spaces, key=lambda i: abs(i - len(label) / 2))
    return f"{label[:cut]}\n{label[cut + 1 :]}"


def label_of(text: str) -> str:
    return text.replace("\n", " ")


class SummaryColumns:
    """Hides the chosen columns of a table whose header labels may change between sessions."""

    def __init__(self, table: QTableWidget) -> None:
        self.table = table
        self._prefs = Preferences()
        self.hidden = set(self._prefs.hidden_columns(list(DEFAULT_HIDDEN)))
        header = table.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._menu)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        table.setWordWrap(False)  # one line a row: a long cell elides, it does not wrap

    def labels(self) -> list[str]:
        items = (self.table.horizontalHeaderItem(c) for c in range(self.table.columnCount()))
        return [label_of(item.text()) if item else "" for item in items]

    def apply(self) -> None:
        """Show and hide the columns as chosen; cap the widths after resizing to contents."""
        for c, label in enumerate(self.labels()):
            self.table.setColumnHidden(c, label in self.hidden and label not in ALWAYS_SHOWN)
            cap = NARROW_PX.get(label, MAX_COLUMN_PX)
            if self.table.columnWidth(c) > cap:
                self.table.setColumnWidth(c, cap)

    def set_shown(self, label: str, shown: bool) -> None:
        (self.hidden.discard if shown else self.hidden.add)(label)
        self._prefs.set_hidden_columns(sorted(self.hidden))
        if shown:
            self.table.resizeColumnsToContents()
        self.apply()

    def menu(self) -> QMenu:
        menu = QMenu(self.table)
        menu.setToolTipsVisible(True)
        for label in self.labels():
            if label in ALWAYS_SHOWN:
                continue
            action = menu.addAction(label)
            action.setCheckable(True)
            action.setChecked(label not in self.hidden)
            action.toggled.connect(lambda on, name=label: self.set_shown(name, on))
        return menu

    def _menu(self, pos: QPoint) -> None:
        self.menu().exec(self.table.horizontalHeader().mapToGlobal(pos))
