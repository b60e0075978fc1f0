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
from tcprof.app.sessions.dialog import COLUMN, SessionsDialog
from tcprof.app.sessions.store import ARMS_FIRST_READ, list_sessions
from tcprof.profiler.folders.run_lock import RunLock
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
    assert [r[4] for r in compared.rows()] == ["n/a", "n/a"], "one round each: nothing judged"
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
    assert dialog.row_text(0)["arms"] == "eager, inductor-max"
    assert dialog.row_text(0)["status"] == "completed with errors"


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


def _with_speedups(folder, started_at, speedups, model="SimpleModel", logs=0):
    """A session whose compiled arms have these speedups per batch size (a value, with a settled
    interval around it, or (value, [low, high])); logs: that many bytes of log after the arms
    (a long run's session.json)."""
    arms = [{"backend": "eager"}, *({"backend": name} for name in speedups)]
    session = write_session(
        folder, started_at, config={"arms": arms, "source": {"path": "/x/m.py", "model": model}}
    )
    base = session["arms"][0]
    session["arms"] = [base]
    for index, (name, by_bs) in enumerate(speedups.items(), start=1):
        rows = [
            {
                **base["results"][0],
                "batch_size": bs,
                "speedup": value,
                "speedup_ci": ci or ([value * 0.97, value * 1.03] if value else None),
                "compile_status": "compiled",
            }
            for bs, (value, ci) in ((bs, v if isinstance(v, tuple) else (v, None))
                                    for bs, v in by_bs.items())
        ]  # fmt: skip
        session["arms"].append(
            {**base, "index": index, "name": name, "backend": name, "results": rows}
        )
    session["logs"] = [{"text": "x" * 1000} for _ in range(logs // 1000)]
    (folder / "session.json").write_text(json.dumps(session, indent=1))


def test_the_list_shows_status_and_the_best_speedup_in_sight(qtbot, private_home):
    root = private_home / "sessions"
    _with_speedups(
        root / "fast", 3.0, {"aot_eager": {8: 1.21, 16: 1.5}, "inductor": {8: 1.84, 16: 0.9}}
    )
    _with_speedups(
        root / "long-logs", 2.0, {"inductor": {8: 2.5}}, logs=4 * ARMS_FIRST_READ
    )  # its arms in the first read, the rest not read at all
    _with_speedups(
        root / "long-name", 1.0, {"inductor": {8: None}}, model="VeryLong" * 30
    )  # no speedup measured (an arm that failed)
    _with_speedups(root / "noisy", 0.5, {"inductor": {8: (4.91, [0.55, 43.92])}})
    listed = {s.folder.name: s for s in list_sessions()}
    assert listed["noisy"].speedup == "not settled", "an unsettled speedup is never the best"
    assert listed["noisy"].speedups == "inductor: bs 8 not settled"
    assert listed["fast"].speedup == "1.84× inductor bs 8"
    assert (
        listed["fast"].speedups
        == "aot_eager: bs 8 1.21×, bs 16 1.50×\ninductor: bs 8 1.84×, bs 16 0.90×"
    )
    assert listed["long-logs"].speedup == "2.50× inductor bs 8"
    assert listed["long-name"].speedup == "" and listed["long-name"].speedups == ""

    dialog = _dialog(qtbot)
    dialog.resize(900, 440)
    dialog.show()
    qtbot.waitExposed(dialog)
    header = dialog.table.horizontalHeader()
    assert [dialog.table.horizontalHeaderItem(c).text() for c in range(6)][:3] == [
        "date",
        "status",
        "speedup",
    ]
    assert dialog.row_text(0)["speedup"] == "1.84× inductor bs 8"
    assert dialog.table.item(0, COLUMN["speedup"]).toolTip() == listed["fast"].speedups
    assert dialog.row_text(2)["status"] == "completed" and dialog.row_text(2)["speedup"] == ""
    viewport = dialog.table.viewport().width()
    for name in ("date", "status", "speedup"):  # in sight, whatever the model's name
        c = COLUMN[name]
        assert header.sectionViewportPosition(c) + header.sectionSize(c) <= viewport, name
        assert header.sectionSize(c) >= dialog.table.sizeHintForColumn(c), name
    model = dialog.table.item(2, COLUMN["model"])
    assert header.sectionSize(COLUMN["model"]) < dialog.fontMetrics().horizontalAdvance(
        model.text()
    )
    assert model.toolTip().startswith(model.text()), "the whole name is its tooltip"
