"""The Sessions list shows the team store's sessions in a group of its own when a store is set,
read in the background (the window never waits for the server); a teammate's session opens
from its cached copy, and a store that is down is one line in the group."""

from __future__ import annotations

import pytest

from tcprof.app.sessions.dialog import SessionsDialog
from tcprof.profiler.trackers import log_session
from tests.app.conftest import write_session
from tests.support.mlflow_server import experiment, free_port

pytestmark = [pytest.mark.tracker, pytest.mark.timeout(240)]


def _dialog(qtbot) -> SessionsDialog:
    dialog = SessionsDialog()
    qtbot.addWidget(dialog)
    return dialog


def test_a_teammates_session_is_listed_apart_and_opens(qtbot, mlflow_server, tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_EXPERIMENT_NAME", experiment())
    mlflow_server.wait_ready()
    theirs = tmp_path / "teammate" / "20260101-120000-net"
    write_session(theirs, 1.0, median=2.0)
    assert log_session(theirs, [f"mlflow:{mlflow_server.uri}"]) == []

    monkeypatch.setenv("TCPROF_STORE", mlflow_server.uri)
    dialog = _dialog(qtbot)  # my own sessions folder is empty
    assert dialog.table.rowCount() == 0
    assert dialog.team.isVisibleTo(dialog)
    assert dialog.team.title.text().endswith("reading…")  # the window went on meanwhile
    qtbot.waitUntil(lambda: dialog.team.table.rowCount() == 1, timeout=120_000)
    assert dialog.team.row_text(0)["name (in the store)"] == theirs.name
    assert mlflow_server.uri in dialog.team.title.text()
    with qtbot.waitSignal(dialog.openRequested) as opened:
        dialog.team._open(0)
    assert opened.args == [str(dialog.team.folder(0))]
    assert (dialog.team.folder(0) / "session.json").is_file()


def test_no_store_no_group_and_a_store_that_is_down_is_one_line(qtbot, monkeypatch):
    monkeypatch.delenv("TCPROF_STORE", raising=False)
    dialog = _dialog(qtbot)
    assert not dialog.team.isVisibleTo(dialog)

    down = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("TCPROF_STORE", down)
    dialog.refresh()
    qtbot.waitUntil(lambda: "cannot reach" in dialog.team.title.text(), timeout=60_000)
    assert dialog.team.title.text() == (
        f"Team store {down}: cannot reach the MLflow server at {down} (Connection refused)"
    )
    assert dialog.team.table.rowCount() == 0
