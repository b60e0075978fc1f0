"""The workers' output, torch's log artifacts and the run's notable moments, filterable by arm
and by source (the model's own output, an artifact such as graph_breaks or guards, or events).

Each event's line comes from profiler.event_text, as on the terminal. Lines arrive in batches
(one per drain of the profiler thread), so the view appends one block per batch rather than one
per line. A bounded history keeps a chatty model from eating memory.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from profiler.event_text import describe
from profiler.events import EventType

MAX_LINES = 20_000
ALL = -1


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
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFont("monospace", 9))
        top = QHBoxLayout()
        top.addWidget(QLabel("Arm:"))
        top.addWidget(self.filter)
        top.addWidget(QLabel("Source:"))
        top.addWidget(self.source)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addWidget(self.text)
        self.names: list[str] = []
        self.lines: deque[tuple[int, str, str]] = deque(maxlen=MAX_LINES)

    def start(self, arm_names: list[str]) -> None:
        self.names = list(arm_names)
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

    def _format(self, arm: int, text: str) -> str:
        name = self.names[arm] if 0 <= arm < len(self.names) else "run"
        return f"[{name}] {text}"

    def _wants(self, arm: int, source: str) -> bool:
        arm_wanted, source_wanted = self.filter.currentData(), self.source.currentData()
        return (arm_wanted == ALL or arm == arm_wanted) and (
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
            text = describe(event)
            if text is None:
                continue
            arm = event.get("arm") if isinstance(event.get("arm"), int) else ALL
            source = source_of(event)
            if self.source.findData(source) < 0:
                self.source.addItem(source, source)
            self.lines.append((arm, source, text))
            if self._wants(arm, source):
                shown.append(self._format(arm, text))
        if shown:
            self.text.appendPlainText("\n".join(shown))

    def _rebuild(self) -> None:
        self.text.setPlainText(
            "\n".join(self._format(a, t) for a, src, t in self.lines if self._wants(a, src))
        )
