"""The main window's actions, toolbar and menus, with their shortcuts and tooltips.

Kept apart from main_window.py so that file stays about wiring: here is only what each action
is called, which key runs it and what it says it does. The window connects them to its slots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar, QToolButton

from tcprof.app.window.help_menu import add_help_menu
from tcprof.profiler.config.examples import examples


@dataclass(frozen=True)
class WindowActions:
    """What the window's toolbar and menus hold. Each example action's data() is its path
    (its text the example's title)."""

    open: QAction
    open_script: QAction  # a training script, run unchanged
    export: QAction
    log_to: QAction  # Export's other choice: the session to TensorBoard, MLflow or W&B
    run: QAction
    diagnose: QAction
    stop: QAction
    sessions: QAction
    sessions_folder: QAction
    quit: QAction
    examples_menu: QMenu
    recent_menu: QMenu
    toolbar: QToolBar
    show_setup: QAction  # checkable: the setup panel shown
    reset_layout: QAction


def _action(window: QMainWindow, text: str, shortcut: Any, tip: str) -> QAction:
    """An action with its shortcut named in its tooltip, live while the window has focus."""
    action = QAction(text, window)
    action.setShortcut(QKeySequence(shortcut))
    action.setToolTip(f"{tip} ({QKeySequence(shortcut).toString()})")
    action.setStatusTip(tip)
    window.addAction(action)
    return action


def _examples_menu(window: QMainWindow) -> QMenu:
    menu = QMenu("Examples", window)
    for example in examples():
        action = menu.addAction(example.title)
        action.setData(str(example.path))
        action.setToolTip(f"{example.description} ({example.path.name})")
        action.setStatusTip(example.line)
    menu.setToolTipsVisible(True)
    return menu


def make_actions(window: QMainWindow) -> WindowActions:
    """Create the window's actions and put them in its toolbar and menus; nothing is connected."""
    actions = WindowActions(
        open=_action(
            window,
            "Open…",
            QKeySequence.StandardKey.Open,
            "Open a model file, a training script or a saved session (session.json, events.jsonl)",
        ),
        open_script=_action(
            window,
            "Open script…",
            "Ctrl+Shift+O",
            "Open your training script (python train.py ARGS), run unchanged: eager against "
            "compiled, with its own data, optimizer and loss",
        ),
        export=_action(
            window,
            "Export…",
            "Ctrl+E",
            "Export report.html, report.md, steps.csv, session.json and reproduce.py",
        ),
        log_to=_action(
            window,
            "Log to TensorBoard, MLflow or W&&B…",  # && : a menu's one &
            "Ctrl+Shift+E",
            "Log the session to TensorBoard (one run per arm), an MLflow server (a run with "
            "a nested run per arm, the reports attached) or W&B (a run per arm, grouped by the "
            "session), in the background",
        ),
        run=_action(window, "▶ Run", "Ctrl+R", "Run every arm at every batch size"),
        diagnose=_action(
            window,
            "Diagnose…",
            "Ctrl+Shift+R",
            "Run the backend ladder on this model: which compiler stage costs speed, memory "
            "or accuracy (asks first, with its stages and how long it should take)",
        ),
        stop=_action(window, "■ Stop", "Esc", "Stop the run, keeping what was measured"),
        sessions=_action(
            window,
            "Sessions",
            "Ctrl+Shift+S",
            "Saved sessions, newest first: open one, or compare it with the current one",
        ),
        sessions_folder=QAction("Open sessions folder", window),
        quit=_action(window, "Quit", "Ctrl+Q", "Stop any run and quit"),
        examples_menu=_examples_menu(window),
        recent_menu=QMenu("Recent files", window),
        toolbar=window.addToolBar("Main"),
        show_setup=_action(
            window, "Setup panel", "Ctrl+Shift+P", "Show or hide the setup panel on the left"
        ),
        reset_layout=_action(
            window,
            "Reset layout",
            "Ctrl+Shift+0",
            "Default sizes for the setup panel, the plots and the results; show the setup panel",
        ),
    )
    actions.show_setup.setCheckable(True)
    actions.show_setup.setChecked(True)
    _fill_toolbar(actions)
    _fill_menus(window, actions)
    _fill_view_menu(window, actions)
    add_help_menu(window)  # the last menu
    return actions


def _fill_toolbar(actions: WindowActions) -> None:
    toolbar = actions.toolbar
    toolbar.setObjectName("main_toolbar")
    toolbar.setMovable(False)
    toolbar.addAction(actions.open)
    toolbar.addAction(actions.open_script)
    examples_button = QToolButton()
    examples_button.setText("Examples")
    examples_button.setMenu(actions.examples_menu)
    examples_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    examples_button.setToolTip("Open a built-in example model")
    toolbar.addWidget(examples_button)
    toolbar.addSeparator()
    toolbar.addAction(actions.run)
    toolbar.addAction(actions.diagnose)
    toolbar.addAction(actions.stop)
    toolbar.addSeparator()
    toolbar.addAction(actions.export)
    _export_choices(actions)
    toolbar.addAction(actions.sessions)


def _export_choices(actions: WindowActions) -> None:
    """The toolbar's Export exports the reports when clicked; its arrow offers the trackers."""
    button = actions.toolbar.widgetForAction(actions.export)
    if not isinstance(button, QToolButton):
        return
    menu = QMenu(button)
    menu.addAction(actions.export)
    menu.addAction(actions.log_to)
    button.setMenu(menu)
    button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)


def _fill_menus(window: QMainWindow, actions: WindowActions) -> None:
    file_menu = window.menuBar().addMenu("&File")
    file_menu.addAction(actions.open)
    file_menu.addAction(actions.open_script)
    file_menu.addMenu(actions.recent_menu)
    file_menu.addMenu(actions.examples_menu)
    file_menu.addSeparator()
    file_menu.addAction(actions.export)
    file_menu.addAction(actions.log_to)
    file_menu.addAction(actions.sessions)
    file_menu.addAction(actions.sessions_folder)
    file_menu.addSeparator()
    file_menu.addAction(actions.quit)
    run_menu = window.menuBar().addMenu("&Run")
    run_menu.addAction(actions.run)
    run_menu.addAction(actions.diagnose)
    run_menu.addAction(actions.stop)


def _fill_view_menu(window: QMainWindow, actions: WindowActions) -> None:
    view_menu = window.menuBar().addMenu("&View")
    view_menu.addAction(actions.show_setup)
    view_menu.addAction(actions.reset_layout)
