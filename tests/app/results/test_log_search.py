"""Logs wrap long lines and find text: every match highlighted, Enter / F3 to the next one."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QPlainTextEdit

from tcprof.app.results.log_panel import NO_OUTPUT, NONE_CHOSEN, LogPanel


def _panel(qtbot) -> LogPanel:
    panel = LogPanel()
    qtbot.addWidget(panel)
    panel.resize(500, 300)
    panel.show()
    panel.start(["eager", "inductor"])
    panel.add_events(
        [
            {"type": "log", "arm": 0, "stream": "output", "text": "x" * 400 + " END"},
            {"type": "log", "arm": 1, "stream": "output", "text": "guard failed here"},
            {"type": "log", "arm": 1, "stream": "output", "text": "another Guard"},
        ]
    )
    return panel


def test_long_lines_wrap_instead_of_being_cut(qtbot):
    panel = _panel(qtbot)
    assert panel.text.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth
    first = panel.text.document().firstBlock()
    assert first.layout().lineCount() > 1, "the 400-character line takes several lines"


def test_search_highlights_every_match_and_steps_through_them(qtbot):
    panel = _panel(qtbot)
    panel.search.setText("guard")
    assert panel.matches.text() == "2 match(es)" and len(panel.text.extraSelections()) == 2
    assert panel.text.textCursor().blockNumber() == 1, "the first match is selected"
    qtbot.keyClick(panel.search, Qt.Key.Key_Return)
    assert panel.text.textCursor().blockNumber() == 2
    assert panel.text.textCursor().selectedText() == "Guard"
    panel.find_next()  # past the last match: back to the first
    assert panel.text.textCursor().blockNumber() == 1
    panel.find_previous()
    assert panel.text.textCursor().blockNumber() == 2
    panel.add_events([{"type": "log", "arm": 0, "stream": "output", "text": "guard again"}])
    assert panel.matches.text() == "3 match(es)", "lines that arrive later are searched too"
    panel.filter.setCurrentIndex(panel.filter.findData(0))  # eager only
    assert panel.matches.text() == "1 match(es)"
    panel.search.setText("nowhere")
    assert panel.matches.text() == "no match" and panel.text.extraSelections() == []


def test_ctrl_f_goes_to_the_search_field_from_anywhere_in_the_window(qtbot):
    """The offscreen platform activates no window, so the shortcut is fired, not typed."""
    panel = _panel(qtbot)
    panel.search.setText("guard")
    (find,) = [s for s in panel.findChildren(QShortcut) if s.key() == QKeySequence("Ctrl+F")]
    assert find.context() == Qt.ShortcutContext.WindowShortcut
    find.activated.emit()
    assert panel.search.selectedText() == "guard", "ready to type over"


def test_empty_logs_say_why(qtbot):
    panel = LogPanel()
    qtbot.addWidget(panel)
    panel.start(["eager"])
    assert panel.text.toPlainText() == "" and panel.text.placeholderText() == NO_OUTPUT
    panel.add_events([{"type": "log", "arm": 0, "stream": "output", "text": "hello"}])
    panel.source.addItem("guards", "guards")
    panel.source.setCurrentIndex(panel.source.findData("guards"))
    assert panel.text.toPlainText() == "" and panel.text.placeholderText() == NONE_CHOSEN
