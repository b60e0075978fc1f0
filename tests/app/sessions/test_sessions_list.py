"""The Sessions list keeps sessions worth keeping: any two compared (the newer is "after", a
different model warned about), arm labels and readable statuses, rename, delete to the trash,
reveal in the file manager."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox

from tcprof.app.sessions.actions import SessionActions
from tcprof.app.sessions.dialog import SessionsDialog
from tcprof.profiler.store.run_lock import RunLock
from tests.app.conftest import write_session


@pytest.fixture
def actions():
    actions = SessionActions()
    yield actions
    actions.shutdown()


def _dialog(qtbot) -> SessionsDialog:
    dialog = SessionsDialog()
    qtbot.addWidget(dialog)
    return dialog


def test_any_two_sessions_compare_newest_after_with_a_model_warning(actions, qtbot, private_home):
    root = private_home / "sessions"
    write_session(root / "old", 1.0, median=2.0)
    write_session(
        root / "new",
        2.0,
        median=1.0,
        config={"source": {"path": "/x/other.py", "model": "OtherModel"}},
    )
    dialog = actions.show_sessions()
    qtbot.addWidget(dialog)
    dialog.select_folders([root / "old", root / "new"])
    assert dialog.compare_button.isEnabled(), "two sessions compare without one in the window"
    assert dialog.compare_button.text() == "Compare the two"
    assert not dialog.open_button.isEnabled(), "open takes one session"
    with qtbot.waitSignal(dialog.comparePairRequested):
        dialog.compare_button.click()
    compared = actions.compare_dialog
    qtbot.addWidget(compared)
    assert (compared.before_label, compared.after_label) == ("old", "new")
    assert [r[4] for r in compared.rows()] == ["better", "better"]
    assert compared.warnings.isVisibleTo(compared)
    assert "the models differ" in compared.warnings.text()
    assert "single replicate" in compared.warnings.text()


def test_the_list_shows_arm_labels_and_readable_statuses(qtbot, private_home):
    root = private_home / "sessions"
    arms = [{"backend": "eager"}, {"backend": "inductor", "label": "inductor-max"}]
    session = write_session(root / "partial", 1.0, config={"arms": arms})
    session["status"] = "completed_with_errors"
    (root / "partial" / "session.json").write_text(json.dumps(session))
    dialog = _dialog(qtbot)
    assert dialog.table.item(0, 2).text() == "eager, inductor-max"
    assert dialog.table.item(0, 3).text() == "completed with errors"


def test_rename_renames_the_folder_and_refuses_a_clash(qtbot, private_home):
    root = private_home / "sessions"
    write_session(root / "a", 2.0)
    write_session(root / "b", 1.0)
    dialog = _dialog(qtbot)
    dialog.select_folder(root / "a")
    with qtbot.waitSignal(dialog.renamed) as renamed:
        assert dialog.rename_selected("resnet before fix") == root / "resnet before fix"
    assert renamed.args == [str(root / "a"), str(root / "resnet before fix")]
    assert (root / "resnet before fix" / "session.json").is_file() and not (root / "a").exists()
    assert dialog.selected().folder.name == "resnet before fix"
    assert dialog.rename_selected("b") is None
    assert "already a session called b" in dialog.problem.text()
    assert dialog.rename_selected("x/y") is None and "cannot be a folder name" in (
        dialog.problem.text()
    )


def test_delete_asks_then_moves_to_the_trash_and_spares_a_live_run(
    qtbot, private_home, tmp_path, monkeypatch
):
    (tmp_path / "data").mkdir()  # a home's ~/.local/share, where the freedesktop trash lives
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    root = private_home / "sessions"
    write_session(root / "doomed", 2.0)
    write_session(root / "live", 1.0)
    dialog = _dialog(qtbot)
    dialog.select_folder(root / "doomed")
    question = dialog.ask_delete()
    assert "doomed" in question.text() and (root / "doomed").exists(), "nothing before yes"
    with qtbot.waitSignal(dialog.deleted):
        question.button(QMessageBox.StandardButton.Yes).click()
    assert not (root / "doomed").exists()
    assert [p.name for p in (tmp_path / "data" / "Trash" / "files").iterdir()] == ["doomed"]
    assert [s.folder.name for s in dialog.sessions] == ["live"]
    with RunLock(root / "live"):
        dialog.select_folder(root / "live")
        dialog.ask_delete().button(QMessageBox.StandardButton.Yes).click()
        assert "run in progress" in dialog.problem.text()
    assert (root / "live" / "session.json").is_file()


def test_with_no_trash_delete_asks_again_before_deleting_for_good(
    qtbot, private_home, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "no such folder"))  # no trash to use
    root = private_home / "sessions"
    write_session(root / "doomed", 2.0)
    dialog = _dialog(qtbot)
    dialog.ask_delete().button(QMessageBox.StandardButton.Yes).click()
    assert (root / "doomed").exists(), "not deleted for good without asking"
    assert "Delete permanently?" in dialog.question.text()
    with qtbot.waitSignal(dialog.deleted):
        dialog.question.button(QMessageBox.StandardButton.Yes).click()
    assert not (root / "doomed").exists() and dialog.sessions == []


class _FileManager(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.opened: list[QUrl] = []

    @Slot(QUrl)
    def show(self, url: QUrl) -> None:
        self.opened.append(url)


def test_reveal_opens_the_folder_in_the_file_manager(qtbot, private_home):
    root = private_home / "sessions"
    write_session(root / "s", 1.0)
    manager = _FileManager()
    QDesktopServices.setUrlHandler("file", manager, "show")
    try:
        dialog = _dialog(qtbot)
        dialog.folder_button.click()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [u.toLocalFile() for u in manager.opened] == [str(root / "s")]
