"""Help: shortcuts read from the actions, how to read the results, the docs, About's versions."""

from __future__ import annotations

import platform

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QDialog, QLabel, QTableWidget

import tcprof.app.window.help_menu as help_menu
from tcprof.profiler.model.context import Environment


def _help_actions(window):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    return {a.text(): a for a in menu.actions()}


def _shown_dialog(window, action) -> QDialog:
    action.trigger()
    dialog = window.findChildren(QDialog)[-1]
    assert dialog.isVisible()
    return dialog


def test_help_lists_shortcuts_how_to_read_docs_and_about(make_window, monkeypatch):
    window = make_window(background=False)
    actions = _help_actions(window)
    assert list(actions) == [
        "Keyboard shortcuts",
        "How to read the results",
        "Documentation folder",
        "About tcprof",
    ]

    dialog = _shown_dialog(window, actions["Keyboard shortcuts"])
    table = dialog.findChild(QTableWidget)
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert rows["Run"] == "Ctrl+R" and rows["Stop"] == "Esc" and rows["Export"] == "Ctrl+E"
    window.commands.run.setShortcut("Ctrl+Shift+R")  # read from the actions, not a list
    assert dict(help_menu.shortcuts(window))["Run"] == "Ctrl+Shift+R"
    dialog.close()

    dialog = _shown_dialog(window, actions["How to read the results"])
    text = dialog.findChild(QLabel).text()
    for term in ("Speedup", "interval", "Cold", "Break-even", "Memory", "Accuracy", "Recompiles"):
        assert term in text
    dialog.close()

    opened = []
    monkeypatch.setattr(help_menu.QDesktopServices, "openUrl", opened.append)
    actions["Documentation folder"].trigger()  # a checkout: the docs folder opens
    assert opened and opened[0].toLocalFile().endswith("/docs")
    monkeypatch.setattr(help_menu, "docs_folder", lambda: None)  # installed: says where
    dialog = _shown_dialog(window, actions["Documentation folder"])
    assert "docs/ folder" in dialog.findChild(QLabel).text()
    dialog.close()

    monkeypatch.setattr(
        help_menu, "cached_environment", lambda: Environment.of({"torch": "2.13.0+cpu"})
    )
    dialog = _shown_dialog(window, actions["About tcprof"])
    text = dialog.findChild(QLabel).text()
    for version in (platform.python_version(), pyside_version, qVersion(), "2.13.0+cpu"):
        assert version in text
    assert "pyqtgraph" in text and "0.1.0" in text
    dialog.close()


def test_about_says_torch_is_not_known_before_the_probe():
    assert "not known yet" in dict(help_menu.versions(None))["torch"]
