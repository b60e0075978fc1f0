"""SessionActions alone, with no window: which session is shown, and what opening, exporting,
comparing, listing and recovering sessions tell their listeners through signals."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tcprof.app.sessions.actions import SessionActions
from tcprof.app.sessions.store import LoadedSession
from tcprof.profiler.model.session import SessionModel
from tests.app.conftest import write_session

EXPORTED = {"report.html", "report.md", "steps.csv", "session.json", "reproduce.py"}


@pytest.fixture
def actions():
    actions = SessionActions()
    yield actions
    actions.shutdown()
    assert not actions.calls.busy()


def test_opening_a_session_shows_it_and_offers_its_setup_back(actions, qtbot, tmp_path):
    session = write_session(tmp_path / "saved", 1.0, config={"blocks": 3, "sequential": True})
    with (
        qtbot.waitSignal(actions.setupRestored) as restored,
        qtbot.waitSignal(actions.sessionOpened) as opened,
        qtbot.assertNotEmitted(actions.problem),
    ):
        assert actions.open_session(tmp_path / "saved" / "session.json")
    loaded = opened.args[0]
    assert isinstance(loaded, LoadedSession)
    assert loaded.folder == tmp_path / "saved"
    assert loaded.session.pop("series")["key"], "an older session gets its series key when read"
    assert loaded.session == session
    assert loaded.events, "events to replay are synthesised from the samples"
    assert restored.args == [session["config"]]
    assert restored.args[0]["blocks"] == 3 and restored.args[0]["sequential"] is True
    assert actions.has_session() and actions.saved
    shown = SessionModel.from_json(session, tmp_path / "saved")
    assert (actions.session, actions.folder) == (shown, tmp_path / "saved")
    assert actions.can_export()


def test_a_file_that_is_not_a_session_is_a_problem_not_a_session(actions, qtbot, tmp_path):
    bad = tmp_path / "session.json"
    bad.write_text(json.dumps({"hello": 1}))
    with (
        qtbot.waitSignal(actions.problem) as problem,
        qtbot.assertNotEmitted(actions.sessionOpened),
        qtbot.assertNotEmitted(actions.setupRestored),
    ):
        assert not actions.open_session(bad)
    assert problem.args[0]["kind"] == "open"
    assert "not a tcprof session" in problem.args[0]["message"]
    assert not actions.has_session() and not actions.can_export()


def test_a_run_replaces_the_session_shown_and_nothing_opens_meanwhile(actions, qtbot, tmp_path):
    write_session(tmp_path / "saved", 1.0)
    assert actions.open_session(tmp_path / "saved")
    actions.on_run_started()
    assert not actions.has_session() and not actions.can_export()
    with qtbot.assertNotEmitted(actions.sessionOpened):
        assert not actions.open_session(tmp_path / "saved")
    run = write_session(tmp_path / "run", 2.0)
    actions.on_run_ended(SessionModel.from_json(run), tmp_path / "run")
    assert actions.session == SessionModel.from_json(run) and actions.folder == tmp_path / "run"
    assert not actions.saved and actions.full is None
    assert actions.can_export(), "a run's session.json is exported from its folder"
    assert actions.open_session(tmp_path / "saved"), "the run has ended"


def test_export_tells_when_it_starts_and_where_the_files_went(actions, qtbot, tmp_path):
    write_session(tmp_path / "saved", 1.0)
    actions.open_session(tmp_path / "saved")
    exporting, messages = [], []
    actions.exportingChanged.connect(exporting.append)
    actions.message.connect(messages.append)
    out = tmp_path / "out"
    with qtbot.waitSignal(actions.exportDone, timeout=30_000) as done:
        assert actions.export_to(out)
        assert not actions.can_export() and not actions.export_to(out), "one at a time"
    paths, folder = done.args
    assert folder == str(out)
    assert {Path(p).name for p in paths} == EXPORTED
    assert all(Path(p).is_file() for p in paths)
    assert exporting == [True, False]
    assert messages == [f"Exporting to {out}…", f"Exported 5 files to {out}"]
    assert actions.can_export()


def test_an_export_that_fails_is_a_problem(actions, qtbot, tmp_path):
    write_session(tmp_path / "saved", 1.0)
    actions.open_session(tmp_path / "saved")
    not_a_folder = tmp_path / "file.txt"
    not_a_folder.write_text("")
    with (
        qtbot.assertNotEmitted(actions.exportDone),  # checked after the wait below
        qtbot.waitSignal(actions.problem, timeout=30_000) as problem,
    ):
        assert actions.export_to(not_a_folder)
    assert problem.args[0]["kind"] == "export" and problem.args[0]["message"]
    assert not actions.exporting and actions.can_export()


def test_compare_needs_a_session_shown_and_reports_a_bad_one(actions, qtbot, tmp_path):
    write_session(tmp_path / "before", 1.0, median=2.0, rounds=3)
    write_session(tmp_path / "after", 2.0, median=1.0, rounds=3)
    assert actions.compare_with(tmp_path / "before") is None, "nothing shown to compare with"
    actions.open_session(tmp_path / "after")
    dialog = actions.compare_with(tmp_path / "before")
    qtbot.addWidget(dialog)
    assert [(r[0], r[4]) for r in dialog.rows()] == [("eager", "better"), ("aot_eager", "better")]
    with qtbot.waitSignal(actions.problem) as problem:
        assert actions.compare_with(tmp_path / "missing") is None
    assert problem.args[0]["kind"] == "compare"


def test_the_sessions_list_opens_and_compares_through_the_actions(actions, qtbot, private_home):
    root = private_home / "sessions"
    write_session(root / "old", 1.0, median=2.0, rounds=3)
    write_session(root / "new", 2.0, median=1.0, rounds=3)
    dialog = actions.show_sessions()
    qtbot.addWidget(dialog)
    assert [x.folder for x in dialog.sessions] == [root / "new", root / "old"]
    assert [x.problem for x in dialog.sessions] == [None, None]
    dialog.select_folder(root / "new")
    assert dialog.open_button.isEnabled()
    assert not dialog.compare_button.isEnabled(), "nothing shown to compare with"
    with qtbot.waitSignal(actions.sessionOpened) as opened:
        dialog.open_button.click()
    assert opened.args[0].folder == root / "new"
    assert dialog.compare_button.isEnabled(), "a session is shown now"
    dialog.select_folder(root / "old")
    dialog.compare_button.click()
    compared = actions.compare_dialog
    assert compared is not None and compared.parent() is None
    qtbot.addWidget(compared)
    assert [r[4] for r in compared.rows()] == ["better", "better"]


def test_recovery_at_start_up_is_announced(actions, qtbot, private_home):
    folder = private_home / "sessions" / "crashed"
    config = write_session(folder, time.time())["config"]
    (folder / "session.json").unlink()
    start = {"type": "run_start", "t": 0, "wall_time": time.time(), "config": config}
    (folder / "events.jsonl").write_text(json.dumps(start) + "\n{torn")
    old = time.time() - 3600
    os.utime(folder / "events.jsonl", (old, old))
    with qtbot.waitSignal(actions.recovered, timeout=30_000) as recovered:
        actions.recover_later(min_age_s=0)
    assert recovered.args[0].startswith("Recovered 1 interrupted session")
    assert (folder / "session.json").is_file()
