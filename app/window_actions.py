"""The main window's actions, toolbar and menus, with their shortcuts and tooltips.

Kept apart from main_window.py so that file stays about wiring: here is only what each action
is called, which key runs it and what it says it does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QToolButton

from profiler.examples import list_examples

if TYPE_CHECKING:
    from app.main_window import MainWindow


def make_actions(window: MainWindow) -> None:
    """Create the window's actions, toolbar and menus (attributes of the window)."""

    def action(text: str, shortcut: Any, slot, tip: str) -> QAction:
        a = QAction(text, window)
        a.setShortcut(QKeySequence(shortcut))
        a.setToolTip(f"{tip} ({QKeySequence(shortcut).toString()})")
        a.setStatusTip(tip)
        a.triggered.connect(slot)
        window.addAction(a)
        return a

    window.open_action = action(
        "Open…",
        QKeySequence.StandardKey.Open,
        window.open_file_dialog,
        "Open a model file, or a saved session (session.json, events.jsonl)",
    )
    window.export_action = action(
        "Export…",
        "Ctrl+E",
        lambda: window.sessions.export_dialog(),
        "Export report.html, report.md, steps.csv, session.json and reproduce.py",
    )
    window.run_action = action(
        "▶ Run", "Ctrl+R", window.start_run, "Run every arm at every batch size"
    )
    window.stop_action = action(
        "■ Stop", "Esc", window.stop_run, "Stop the run, keeping what was measured"
    )
    window.sessions_action = action(
        "Sessions",
        "Ctrl+Shift+S",
        lambda: window.sessions.show_sessions(),
        "Saved sessions, newest first: open one, or compare it with the current one",
    )
    window.sessions_folder_action = QAction("Open sessions folder", window)
    window.sessions_folder_action.triggered.connect(window.open_sessions_folder)
    window.quit_action = action("Quit", "Ctrl+Q", window.close, "Stop any run and quit")
    window.examples_menu = QMenu("Examples", window)
    for name, (path, description) in list_examples().items():
        a = window.examples_menu.addAction(name)
        a.setToolTip(description)
        a.setStatusTip(description)
        a.triggered.connect(lambda _=False, p=str(path): window.load_model(p))
    window.examples_menu.setToolTipsVisible(True)
    window.recent_menu = QMenu("Recent files", window)
    toolbar = window.addToolBar("Main")
    toolbar.setObjectName("main_toolbar")
    toolbar.setMovable(False)
    toolbar.addAction(window.open_action)
    examples_button = QToolButton()
    examples_button.setText("Examples")
    examples_button.setMenu(window.examples_menu)
    examples_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    examples_button.setToolTip("Open a built-in example model")
    toolbar.addWidget(examples_button)
    toolbar.addSeparator()
    toolbar.addAction(window.run_action)
    toolbar.addAction(window.stop_action)
    toolbar.addSeparator()
    toolbar.addAction(window.export_action)
    toolbar.addAction(window.sessions_action)
    file_menu = window.menuBar().addMenu("&File")
    file_menu.addAction(window.open_action)
    file_menu.addMenu(window.recent_menu)
    file_menu.addMenu(window.examples_menu)
    file_menu.addSeparator()
    file_menu.addAction(window.export_action)
    file_menu.addAction(window.sessions_action)
    file_menu.addAction(window.sessions_folder_action)
    file_menu.addSeparator()
    file_menu.addAction(window.quit_action)
    run_menu = window.menuBar().addMenu("&Run")
    run_menu.addAction(window.run_action)
    run_menu.addAction(window.stop_action)
