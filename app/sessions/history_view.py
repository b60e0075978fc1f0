"""The History view: a saved session's series over commits and torch versions, as `tcprof history`
shows it (docs/history.md): the table, the changes flagged beyond noise with their sentences,
and the same charts as the history's HTML page (app/sessions/history_charts.py).

Opened from the Sessions list for the session picked. The series is read through the engine's
functions (the sessions folder's index, `build_history`, `table_cells`, `chart_data`: the ones
the command uses) on a background thread, so a folder of hundreds of sessions never freezes the
window. A session that belongs to no series, or is the only one of its series, gets one line
saying so instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.background import BackgroundCalls, failure_of
from tcprof.app.common.table_text import table_text
from tcprof.app.common.theme import error_colour, muted_colour
from tcprof.app.sessions.history_charts import ChartData, HistoryCharts

NO_CHANGE = "No change beyond noise between consecutive sessions."
TABLE_ROWS = 8  # the table's height in rows before it scrolls (the charts take the rest)


@dataclass(frozen=True)
class SeriesShown:
    """What the view shows of a series: its title and head line, the table (`picked`: the rows
    of the session opened), the changes flagged, the notes, the rule, and the charts' data;
    or only `alone`, the sentence saying why there is no series to show."""

    alone: str = ""
    title: str = ""
    head: str = ""
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    picked: tuple[int, ...] = ()
    changes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    rule: str = ""
    charts: ChartData = field(default_factory=ChartData)
    arms: tuple[str, ...] = ()


def load_series(folder: Path) -> SeriesShown:
    """Runs on a background thread: the series of the session in `folder`, read as `tcprof
    history` reads it; only `alone`, a sentence, when there is no series to show."""
    from tcprof.profiler.folders.index import load_index
    from tcprof.profiler.report import history

    entries = load_index(folder.parent)
    mine = next((e for e in entries if e.get("folder") == folder.name), None)
    if mine is None:
        return SeriesShown(alone=f"{folder.name} is not a session the history can read.")
    if not mine.get("series"):
        return SeriesShown(
            alone=f"{folder.name} names no model file or script, so it belongs to no series."
        )
    h = history.build_history(entries, mine["series"])
    if len(h.entries) < 2:
        return SeriesShown(
            alone=f"{folder.name} is the only session of its series ({h.text}): profile it "
            "again, at another commit or torch, to see its history."
        )
    header, rows = history.table_cells(h)
    picked = (history.date_text(mine), history.commit_text(mine))
    return SeriesShown(
        title=f"{h.text}",
        head=f"series {h.key} · {len(h.entries)} sessions · {folder.name} highlighted",
        header=tuple(header),
        rows=tuple(tuple(r) for r in rows),
        picked=tuple(i for i, r in enumerate(rows) if (r[0], r[1]) == picked),
        changes=tuple(c.text() for c in h.changes),
        notes=tuple(h.notes),
        rule=f"Rule: {history.RULE_TEXT}.",
        charts=ChartData.of(history.chart_data(h)),
        arms=tuple(h.arms),
    )


class HistoryDialog(QDialog):
    loaded = Signal()  # the series is shown (or the line saying why there is none)

    def __init__(self, folder: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder = Path(folder)
        self.setWindowTitle(f"History of {self.folder.name}")
        self.resize(1100, 760)
        self.head = QLabel(f"Reading the series of {self.folder.name}…")
        self.head.setWordWrap(True)
        self.head.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.changes = QLabel()
        self.changes.setWordWrap(True)
        self.changes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.charts = HistoryCharts()
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(self.table)
        self.split.addWidget(self.charts)
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 3)
        self.rule = QLabel()
        self.rule.setWordWrap(True)
        self.rule.setStyleSheet(f"color: {muted_colour()}")
        layout = QVBoxLayout(self)
        layout.addWidget(self.head)
        layout.addWidget(self.changes)
        layout.addWidget(self.split, 1)
        layout.addWidget(self.rule)
        for w in (self.changes, self.split, self.rule):
            w.hide()
        self.series: SeriesShown | None = None  # what load_series returned, once it has
        self.calls = BackgroundCalls(self)
        self.calls.submit(load_series, self._show, self.folder)

    def _show(self, result: SeriesShown | object) -> None:
        if not isinstance(result, SeriesShown):  # the reading raised
            failure = failure_of(result)
            result = SeriesShown(alone=failure.message if failure else repr(result))
            self.series = result
            self.head.setText(f"Cannot read the series: {result.alone}")
            self.head.setStyleSheet(f"color: {error_colour()}")
        elif result.alone:
            self.series = result
            self.head.setText(result.alone)
            self.resize(640, 120)  # one line: no room kept for a table and charts
        else:
            self.series = result
            self._show_series(result)
        self.loaded.emit()

    def _show_series(self, result: SeriesShown) -> None:
        self.setWindowTitle(f"History: {result.title}")
        bold = QFont(self.head.font())
        bold.setBold(True)
        self.head.setText(f"{result.title}\n{result.head}")
        changes = [f"• {c}" for c in result.changes] or [NO_CHANGE]
        notes = [f"Note: {n}" for n in result.notes]
        self.changes.setText("\n".join(changes + notes))
        if result.changes:
            self.changes.setStyleSheet(f"color: {error_colour()}")
        self.rule.setText(result.rule)
        header, rows = result.header, result.rows
        self.table.setColumnCount(len(header))
        self.table.setHorizontalHeaderLabels(list(header))
        self.table.setRowCount(len(rows))
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{header[c]}: {text}")
                if r in result.picked:
                    item.setFont(bold)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self._fit_table(len(rows))
        first = self.table.item(result.picked[0], 0) if result.picked else None
        if first is not None:
            self.table.scrollToItem(first)
        self.charts.show_series(result.charts, list(result.arms))
        for w in (self.changes, self.split, self.rule):
            w.show()

    def _fit_table(self, rows: int) -> None:
        """The table as tall as its rows, up to TABLE_ROWS of them; the charts take the rest."""
        shown = min(rows, TABLE_ROWS)
        height = self.table.horizontalHeader().sizeHint().height() + 2 * self.table.frameWidth()
        height += sum(self.table.rowHeight(r) for r in range(shown))
        height += self.table.horizontalScrollBar().sizeHint().height()
        total = max(self.split.height(), height + 400)
        self.split.setSizes([height, total - height])

    # -- what tests read -----------------------------------------------------------------------
    def rows(self) -> list[list[str]]:
        return table_text(self.table)

    def header(self) -> list[str]:
        items = (self.table.horizontalHeaderItem(c) for c in range(self.table.columnCount()))
        return [item.text() if item is not None else "" for item in items]

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        self.calls.shutdown()
        super().closeEvent(event)
