"""The Summary's column choice: right-click the header to hide or show a column, remembered
across restarts. By default the columns a speedup decision needs least (p90, samples/s) are
hidden so that the rest (memory, accuracy, recompiles and breaks included) fit at 1280 px; a
cell too long for its column is elided, its whole text in its tooltip. Narrower (1024 px, the
setup panel shown), the widest columns give way first, down to FIT_FLOOR_PX, so that the last
column stays in view rather than behind a scroll bar below the window's edge."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtWidgets import QMenu, QTableWidget

from tcprof.app.common.settings import Preferences
from tcprof.profiler.report.sections.columns import SPEEDUP, column_key

DEFAULT_HIDDEN = ("p90 ms", "samples/s")
MAX_COLUMN_PX = 190  # wider cells elide: "0.42x (one round: no interval yet)" stays readable
# Columns whose cells run long with words a tooltip can hold ("ok (9/10 blocks contended)").
NARROW_PX = {"status": 100, SPEEDUP: 140, "verdict": 110, "break-even cold/warm": 110}
ALWAYS_SHOWN = ("arm", "bs")  # never hidden, nor narrowed to fit: they name the row
WHOLE_LABEL = Qt.ItemDataRole.UserRole  # a header item's whole label, while its text is elided
HEADER_PADDING_PX = 10  # a header section's margins either side, together
FIT_FLOOR_PX = 40  # a column narrowed to fit keeps this much (a few letters and the ellipsis)


def fitted(widths: list[int], room: int, floor: int = FIT_FLOOR_PX) -> list[int]:
    """The widths capped at one level, the highest at which they fit in `room`: the widest
    columns give way first, none below `floor` (or its own width, if narrower). Widths that
    fit are returned as they are; ones that cannot fit even at `floor` are capped there."""
    if sum(widths) <= room:
        return list(widths)
    low, high = floor, max(widths)
    while low < high:  # the highest cap whose total fits
        cap = (low + high + 1) // 2
        if sum(min(w, cap) for w in widths) <= room:
            low = cap
        else:
            high = cap - 1
    return [min(w, low) for w in widths]


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


class SummaryColumns(QObject):
    """Hides the chosen columns of a table whose header labels may change between sessions,
    and fits the rest to the table's width as it is resized."""

    def __init__(self, table: QTableWidget) -> None:
        super().__init__(table)
        self.table = table
        self._natural: dict[int, int] = {}  # the shown columns' widths before fitting
        self._viewport = table.viewport()  # its width is the room the columns have
        self._viewport.installEventFilter(self)
        self._prefs = Preferences()
        self.hidden = set(self._prefs.hidden_columns(list(DEFAULT_HIDDEN)))
        header = table.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._menu)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        table.setWordWrap(False)  # one line a row: a long cell elides, it does not wrap

    def labels(self) -> list[str]:
        items = (self.table.horizontalHeaderItem(c) for c in range(self.table.columnCount()))
        return [(item.data(WHOLE_LABEL) or label_of(item.text())) if item else "" for item in items]

    def apply(self) -> None:
        """Show and hide the columns as chosen; cap the widths after resizing to contents."""
        for c, label in enumerate(self.labels()):
            self.table.setColumnHidden(
                c, column_key(label) in self.hidden and label not in ALWAYS_SHOWN
            )
            cap = NARROW_PX.get(column_key(label), MAX_COLUMN_PX)
            if self.table.columnWidth(c) > cap:
                self.table.setColumnWidth(c, cap)
            item = self.table.horizontalHeaderItem(c)
            if item is not None and label not in item.toolTip():  # an elided title, whole
                item.setToolTip(f"{label}\n{item.toolTip()}".strip())
        self._natural = {
            c: self.table.columnWidth(c)
            for c in range(self.table.columnCount())
            if not self.table.isColumnHidden(c)
        }
        self.fit()

    def fit(self) -> None:
        """The shown columns narrowed (elided) to the table's width, the widest first; 'arm'
        and 'bs' kept whole. A wider table gives the columns back their natural widths."""
        labels = self.labels()
        fixed = [c for c in self._natural if labels[c] in ALWAYS_SHOWN]
        flexible = [c for c in self._natural if c not in fixed]
        room = self.table.viewport().width() - sum(self._natural[c] for c in fixed)
        widths = fitted([self._natural[c] for c in flexible], room)
        metrics = self.table.horizontalHeader().fontMetrics()
        for c, width in zip(flexible, widths, strict=True):
            self.table.setColumnWidth(c, width)
            item = self.table.horizontalHeaderItem(c)
            if item is None:
                continue
            item.setData(WHOLE_LABEL, labels[c])
            lines = two_lines(labels[c]).split("\n")  # each line elided on its own
            room = width - HEADER_PADDING_PX if width < self._natural[c] else 10_000
            item.setText(
                "\n".join(
                    metrics.elidedText(line, Qt.TextElideMode.ElideRight, room) for line in lines
                )
            )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if watched is self._viewport and event.type() == QEvent.Type.Resize and self._natural:
            self.fit()
        return False

    def set_shown(self, label: str, shown: bool) -> None:
        # by column_key: the speedup column stays hidden whatever level its header states
        (self.hidden.discard if shown else self.hidden.add)(column_key(label))
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
            action.setChecked(column_key(label) not in self.hidden)
            action.toggled.connect(lambda on, name=label: self.set_shown(name, on))
        return menu

    def _menu(self, pos: QPoint) -> None:
        self.menu().exec(self.table.horizontalHeader().mapToGlobal(pos))
