"""The workers' output, torch's log artifacts and the run's notable moments, filterable by arm
and by source (the model's own output, an artifact such as graph_breaks or guards, or events).

Each event's line comes from tcprof.profiler.protocol.event_text, as on the terminal. Lines arrive in batches
(one per drain of the profiler thread), so the view appends one block per batch rather than one
per line. A bounded history keeps a chatty model from eating memory. Lines wrap (nothing is cut)
and a search field finds text: Enter or F3 goes to the next match, Shift+Enter to the previous,
and every match is highlighted.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QKeySequence,
    QShortcut,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.options import RunOptions
from tcprof.profiler.protocol.event_text import describe
from tcprof.profiler.protocol.events import EventType

MAX_LINES = 20_000
ALL = -1
MAX_HIGHLIGHTS = 2_000  # beyond this many matches, only the current one is marked
NO_OUTPUT = (
    "No output yet: the workers' output, torch's log artifacts and the run's events appear "
    "here once a run starts."
)
NONE_CHOSEN = 'No line from the arm and source chosen: pick "all arms" or "all sources".'


def source_of(event: dict[str, Any]) -> str:
    """The source filter's entry for an event: the model's output, a torch artifact, events."""
    if event.get("type") == EventType.LOG:
        if event.get("artifact"):
            return str(event["artifact"])
        return "model output" if event.get("stream") == "output" else "tcprof"
    return "events"


class LogPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.filter = QComboBox()
        self.filter.addItem("all arms", ALL)
        self.filter.setToolTip("Show the output of one arm's worker process only")
        self.filter.currentIndexChanged.connect(self._rebuild)
        self.source = QComboBox()
        self.source.addItem("all sources", ALL)
        self.source.setToolTip(
            "model output: what the model and workers printed; events: compiles, graph breaks, errors;\n"
            "an artifact name: the torch._logging.set_logs artifact chosen in the debug options"
        )
        self.source.currentIndexChanged.connect(self._rebuild)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setMaximumBlockCount(MAX_LINES)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.text.setFont(QFont("monospace", 9))
        self.text.setPlaceholderText(NO_OUTPUT)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Find in logs (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Enter or F3: next match; Shift+Enter or Shift+F3: previous")
        self.search.textChanged.connect(self._on_search_changed)
        self.search.returnPressed.connect(self.find_next)
        self.matches = QLabel()
        for keys, slot in (
            ("Ctrl+F", self.focus_search),
            ("F3", self.find_next),
            ("Shift+F3", self.find_previous),
            ("Shift+Return", self.find_previous),
        ):
            shortcut = QShortcut(QKeySequence(keys), self)
            # Ctrl+F works anywhere in the window while Logs is shown (a hidden widget's
            # shortcuts are off); stepping through matches, from within the panel.
            shortcut.setContext(
                Qt.ShortcutContext.WindowShortcut
                if keys == "Ctrl+F"
                else Qt.ShortcutContext.WidgetWithChildrenShortcut
            )
            shortcut.activated.connect(slot)
        top = QHBoxLayout()
        top.addWidget(QLabel("Arm:"))
        top.addWidget(self.filter)
        top.addWidget(QLabel("Source:"))
        top.addWidget(self.source)
        top.addStretch(1)
        self.search.setMaximumWidth(320)  # and no minimum: the window stays narrow-able
        top.addWidget(self.search, 1)
        top.addWidget(self.matches)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addWidget(self.text)
        self.names: list[str] = []
        self.script: ScriptSource | None = None  # the run's script: its phases in its words
        self.lines: deque[tuple[int, str, str]] = deque(maxlen=MAX_LINES)

    def start(self, arm_names: list[str]) -> None:
        self.names = list(arm_names)
        self.script = None
        self.lines.clear()
        self.filter.blockSignals(True)
        self.filter.clear()
        self.filter.addItem("all arms", ALL)
        for i, name in enumerate(arm_names):
            self.filter.addItem(name, i)
        self.filter.blockSignals(False)
        self.source.blockSignals(True)
        self.source.clear()
        self.source.addItem("all sources", ALL)
        self.source.blockSignals(False)
        self.text.clear()
        self.text.setPlaceholderText(NO_OUTPUT)

    def _format(self, arm: int, text: str) -> str:
        name = self.names[arm] if 0 <= arm < len(self.names) else "run"
        return f"[{name}] {text}"

    def _wants(self, arm: int, source: str) -> bool:
        arm_wanted, source_wanted = self.filter.currentData(), self.source.currentData()
        return bool(arm_wanted == ALL or arm == arm_wanted) and bool(
            source_wanted == ALL or source == source_wanted
        )

    def add_events(self, events: list[dict[str, Any]]) -> None:
        shown = []
        for event in events:
            if event.get("type") == "arms_added":  # --apply-advice's fixed arms
                for spec in event.get("arms") or []:
                    self.filter.addItem(
                        str(spec.get("label") or spec.get("backend")), len(self.names)
                    )
                    self.names.append(str(spec.get("label") or spec.get("backend")))
            if event.get("type") == "run_start":
                self.script = RunOptions.of(event.get("config")).script
            text = describe(event, script=self.script)
            if text is None:
                continue
            raw_arm = event.get("arm")
            arm = raw_arm if isinstance(raw_arm, int) else ALL
            source = source_of(event)
            if self.source.findData(source) < 0:
                self.source.addItem(source, source)
            self.lines.append((arm, source, text))
            if self._wants(arm, source):
                shown.append(self._format(arm, text))
        if shown:
            self.text.appendPlainText("\n".join(shown))
            if self.search.text():
                self._highlight()

    def _rebuild(self) -> None:
        self.text.setPlaceholderText(NONE_CHOSEN if self.lines else NO_OUTPUT)
        self.text.setPlainText(
            "\n".join(self._format(a, t) for a, src, t in self.lines if self._wants(a, src))
        )
        self._highlight()

    # -- search ---------------------------------------------------------------------------------
    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def _on_search_changed(self) -> None:
        self.text.moveCursor(QTextCursor.MoveOperation.Start)
        self._highlight()
        if self.search.text():
            self.find_next()

    def find_next(self) -> bool:
        return self._find(QTextDocument.FindFlag(0))

    def find_previous(self) -> bool:
        return self._find(QTextDocument.FindFlag.FindBackward)

    def _find(self, flags: QTextDocument.FindFlag) -> bool:
        """Select the next match from the cursor, wrapping around the end once."""
        needle = self.search.text()
        if not needle:
            return False
        if self.text.find(needle, flags):
            return True
        start = (
            QTextCursor.MoveOperation.End
            if flags & QTextDocument.FindFlag.FindBackward
            else QTextCursor.MoveOperation.Start
        )
        self.text.moveCursor(start)
        return self.text.find(needle, flags)

    def match_count(self) -> int:
        """Matches of the search text in the lines shown (case-insensitive, as find is)."""
        needle = self.search.text().lower()
        text = self.text.toPlainText().lower()
        return text.count(needle) if needle else 0

    def _highlight(self) -> None:
        """Mark every match (up to MAX_HIGHLIGHTS) and say how many there are."""
        needle = self.search.text()
        count = self.match_count()
        self.matches.setText("" if not needle else f"{count} match(es)" if count else "no match")
        selections: list[QTextEdit.ExtraSelection] = []
        if needle and count <= MAX_HIGHLIGHTS:
            document = self.text.document()
            cursor = document.find(needle)
            mark = QTextCharFormat()
            mark.setBackground(QColor("#ffe082"))
            mark.setForeground(QColor("#000000"))
            while not cursor.isNull():
                selection = QTextEdit.ExtraSelection()
                selection.cursor = cursor
                selection.format = mark
                selections.append(selection)
                cursor = document.find(needle, cursor)
        self.text.setExtraSelections(selections)
