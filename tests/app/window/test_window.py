"""The window as a whole: nothing left behind by closed windows, persisted settings, tooltips,
presets, drops, the examples menu."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import shiboken6
from PySide6.QtCore import QEvent, QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLineEdit,
    QSpinBox,
)

from tcprof.app.setup.arms_editor import ArmDialog
from tcprof.app.window.main_window import MainWindow
from tcprof.profiler.config import ArmSpec
from tests.app.conftest import write_model


def _top_level_widgets() -> set[int]:
    """The top-level widgets by their C++ address: the id() of a Python wrapper changes when
    a widget nothing in Python refers to is wrapped anew (menus of earlier tests' windows)."""
    return {shiboken6.getCppPointer(w)[0] for w in QApplication.topLevelWidgets()}


def test_windows_opened_and_closed_leave_nothing_behind(qtbot):
    """Windows in a row: each is destroyed when closed and deleted, with its dialogs, timers
    and threads; none stays a top-level widget or keeps a thread running."""
    threads_before = {t.ident for t in threading.enumerate()}
    widgets_before = _top_level_widgets()
    windows = []
    for _ in range(10):
        window = MainWindow(background=False)
        window.show()
        qtbot.waitExposed(window)
        window.sessions.show_sessions()  # a dialog parented to the window
        window.close()
        window.deleteLater()
        windows.append(window)
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not [w for w in windows if shiboken6.isValid(w)], "a closed window was not destroyed"
    assert _top_level_widgets() <= widgets_before
    assert {t.ident for t in threading.enumerate()} <= threads_before


def test_settings_persist_between_windows(make_window, tmp_path):
    path = write_model(tmp_path, "m.py", "import torch.nn as nn\nM = lambda: nn.Linear(3, 1)\n")
    first = make_window(background=False)
    first.load_model(path)
    first.setup.arms.set_arms([ArmSpec("eager"), ArmSpec("aot_eager", dynamic=False)])
    first.setup.batch_sizes.setText("4, 8, 16")
    first.setup.steps.setValue(77)
    first.resize(700, 500)
    first.close()
    second = make_window(background=False)
    assert second.setup.model.current_path() == path
    assert [a.name for a in second.setup.arms.arms()] == ["eager", "aot_eager(dynamic=False)"]
    assert second.setup.batch_sizes.text() == "4, 8, 16"
    assert second.setup.steps.value() == 77
    assert second.size().width() == 700
    assert path in [
        second.commands.recent_menu.actions()[i].text()
        for i in range(len(second.commands.recent_menu.actions()))
    ]


def test_every_setup_field_has_a_tooltip_naming_its_api(make_window):
    window = make_window(background=False)
    kinds = (QLineEdit, QComboBox, QSpinBox, QDoubleSpinBox, QCheckBox)
    fields = [w for k in kinds for w in window.setup.findChildren(k)]
    fields = [
        w for w in fields if not isinstance(w.parent(), (QComboBox, QSpinBox, QDoubleSpinBox))
    ]
    assert len(fields) > 15
    missing = [w for w in fields if not w.toolTip()]
    assert not missing, [type(w).__name__ for w in missing]
    tips = " ".join(w.toolTip() for w in fields)
    for api in (
        "torch.compile",
        "torch.optim",
        "torch.manual_seed",
        "torch._logging.set_logs",
        "torch._dynamo.config.verbose",
    ):
        assert api in tips


def test_debug_preset_says_what_it_sets_and_sets_exactly_that(make_window):
    window = make_window(background=False)
    text = window.setup.debug.preset.toolTip()
    assert 'backend="aot_eager"' in text and 'no mode="debug"' in text
    window.setup.debug.preset.click()
    options = window.setup.config().debug
    assert set(options.logs) == {"graph_breaks", "recompiles"}
    assert options.verbose and not options.suppress_errors
    assert "aot_eager" in [a.backend for a in window.setup.arms.arms()]


def test_arm_dialog_builds_compile_options(qtbot):
    dialog = ArmDialog(ArmSpec("eager"), ["eager", "inductor", "aot_eager"])
    assert not dialog.mode.isEnabled() and not dialog.fullgraph.isEnabled()
    dialog.backend.setCurrentText("inductor")
    assert dialog.mode.isEnabled()
    dialog.mode.setCurrentText("max-autotune")
    dialog.dynamic.setCurrentIndex(2)
    dialog.fullgraph.setChecked(True)
    assert dialog.arm() == ArmSpec("inductor", mode="max-autotune", dynamic=False, fullgraph=True)
    dialog.backend.setCurrentText("aot_eager")
    assert dialog.arm().mode is None  # a mode only applies to inductor
    dialog.regional.setChecked(True)
    dialog.mark_dynamic.setChecked(True)
    assert dialog.arm().regional and dialog.arm().mark_dynamic == 0
    dialog.deleteLater()


def test_arm_dialog_keeps_options_it_was_given(qtbot):
    arm = ArmSpec("aot_eager", regional=True, mark_dynamic=1, label="mine", parallel="ddp")
    dialog = ArmDialog(arm, ["eager", "aot_eager"])
    assert dialog.mark_dynamic.text() == "mark dimension 1 dynamic"
    assert dialog.arm() == arm  # opened and accepted unchanged: nothing dropped
    dialog.backend.setCurrentText("eager")
    assert dialog.arm() == ArmSpec("eager", label="mine", parallel="ddp")
    dialog.deleteLater()


def test_arm_dialog_takes_and_keeps_another_interpreter(qtbot):
    """python=PATH in the window: typed in the dialog, kept when the arm is edited again."""
    arm = ArmSpec("inductor", python="/opt/torch-next/bin/python")
    dialog = ArmDialog(arm, ["eager", "inductor"])
    assert dialog.python.text() == arm.python and dialog.arm() == arm
    dialog.python.setText("")
    assert dialog.arm().python is None  # empty: this environment's own
    dialog.python.setText("~/envs/next/bin/python")
    assert dialog.arm().python == os.path.expanduser("~/envs/next/bin/python")
    dialog.deleteLater()


def test_dropping_a_python_file_loads_it_as_a_model_file_when_asked(make_window, tmp_path):
    window = make_window(background=False)
    path = write_model(tmp_path, "dropped.py", "import torch.nn as nn\n")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(path)])
    event = QDropEvent(
        QPoint(10, 10).toPointF(),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    # a .py file may be a model file or a training script: the window asks (the likelier first)
    first = window.notice.buttons[0]
    assert first.text() == "Open as a model file"
    first.click()
    assert Path(window.setup.model.current_path()) == Path(path)


def test_examples_menu_lists_every_example_by_title(make_window):
    from tcprof.profiler.config.examples import examples

    window = make_window(background=False)
    actions = window.commands.examples_menu.actions()
    assert [a.text() for a in actions] == [e.title for e in examples()]
    assert actions[2].text() == "Small CNN" and "BatchNorm" in actions[2].toolTip()
    actions[1].trigger()
    assert Path(window.setup.model.current_path()).stem == examples()[1].name
    assert window.setup.model.path.currentText() == "MLP (mlp.py)"  # the picker names it too


def test_arm_dialog_is_titled_after_what_it_does_and_adds_inductor(qtbot, monkeypatch):
    from tcprof.app.setup.arms_editor import ArmsEditor

    editor = ArmsEditor()
    qtbot.addWidget(editor)
    editor.set_backends(["eager", "inductor", "aot_eager", "relu_compile_error_TESTING_ONLY"])
    seen = []

    def accept(dialog):
        seen.append(
            (dialog.windowTitle(), dialog.backend.currentText(), dialog.backend_note.text())
        )
        return ArmDialog.DialogCode.Accepted

    monkeypatch.setattr(ArmDialog, "exec", accept)
    editor.add_arm()
    assert seen[0][:2] == ("Add an arm", "inductor") and "TorchInductor" in seen[0][2]
    editor.list.setCurrentRow(0)
    editor.edit_selected()
    assert seen[1][:2] == ("Edit arm eager", "eager")
    # the backend list: group headers that cannot be chosen, a description per backend
    dialog = ArmDialog(ArmSpec("inductor"), editor.backends)
    texts = [dialog.backend.itemText(i) for i in range(dialog.backend.count())]
    assert texts[0] == "Recommended" and texts[1] == "inductor"
    assert texts.index("relu_compile_error_TESTING_ONLY") > texts.index("aot_eager")
    header = dialog.backend.model().item(0)
    assert not header.isSelectable() and not header.isEnabled()
    assert "Dynamo" in dialog.backend.itemData(
        texts.index("aot_eager"), Qt.ItemDataRole.ToolTipRole
    )
    dialog.deleteLater()
