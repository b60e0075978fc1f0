"""Export > Log to TensorBoard or MLflow: the session the window shows logged off the GUI
thread (the window keeps answering while a tracker hangs), each tracker that fails a warning
line shown, the choice checked as the CLI checks it, and remembered."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDialogButtonBox, QToolButton

from tcprof.app.sessions.actions import SessionActions
from tcprof.app.sessions.tracker_dialog import TrackerDialog
from tcprof.profiler.model.session import SessionModel
from tests.app.conftest import write_session
from tests.support.tensorboard_read import accumulator, series

pytestmark = [pytest.mark.tracker, pytest.mark.timeout(120)]


@pytest.fixture
def actions():
    actions = SessionActions()
    yield actions
    actions.shutdown()
    assert not actions.calls.busy()


@pytest.fixture
def shown(actions, tmp_path) -> Path:
    """A saved session opened in the actions: its folder."""
    folder = tmp_path / "20250101-000000-simple"
    write_session(folder, time.time())
    assert actions.open_session(folder)
    return folder


def test_logging_to_tensorboard_in_the_background(actions, shown, qtbot, tmp_path):
    changes: list[bool] = []
    actions.loggingChanged.connect(changes.append)
    assert actions.can_log()
    with qtbot.waitSignal(actions.logDone, timeout=60_000) as done:
        assert actions.log_to([f"tensorboard:{tmp_path / 'tb'}"])
        assert not actions.can_log()  # one logging at a time
    logged, warnings = done.args
    runs = tmp_path / "tb" / shown.name
    assert logged == [f"logged to TensorBoard: {runs} (tensorboard --logdir {runs.parent})"]
    assert warnings == []
    assert changes == [True, False] and actions.can_log()
    medians = series(accumulator(runs / "aot_eager"), "headline/median_ms")
    assert actions.session is not None
    assert medians == {8: pytest.approx(actions.session.arms[1].rows[0].median_ms)}


@pytest.mark.serial  # a deadline of seconds: the GUI thread's longest pause
def test_a_tracker_that_hangs_never_freezes_the_window(actions, shown, qtbot, monkeypatch):
    """A server that takes the connection and never answers: the window's event loop runs
    on (a timer keeps ticking) until MLflow's timeout makes it one warning."""
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "5")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # connections complete in the kernel; nothing ever reads them
    uri = f"http://127.0.0.1:{silent.getsockname()[1]}"
    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(50)
    try:
        with qtbot.waitSignal(actions.logDone, timeout=90_000) as done:
            started = time.monotonic()
            assert actions.log_to([f"mlflow:{uri}"])
            assert time.monotonic() - started < 0.5  # handed to a thread at once
            qtbot.waitUntil(lambda: len(ticks) >= 20, timeout=10_000)
            assert actions.logging  # still waiting on the server while the timer ticked
    finally:
        timer.stop()
        silent.close()
    logged, warnings = done.args
    assert logged == []
    assert len(warnings) == 1 and warnings[0].startswith(f"could not log to mlflow:{uri}: ")
    gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    assert max(gaps) < 2.5, "the GUI thread was blocked"  # the server held it 5 s


def test_a_bad_choice_is_a_problem(actions, shown, qtbot):
    with qtbot.waitSignal(actions.problem) as problem:
        assert actions.log_to(["neptune"])
    assert problem.args[0]["kind"] == "log"
    assert "unknown tracker 'neptune'" in problem.args[0]["message"]
    assert actions.can_log()


def test_nothing_to_log_without_a_saved_session(actions, tmp_path):
    assert not actions.can_log() and not actions.log_to(["tensorboard"])
    unsaved = SessionModel.from_json({"arms": [{"name": "eager", "results": []}]})
    actions.on_run_ended(unsaved, tmp_path / "unsaved")
    assert not actions.can_log()  # no session.json in its folder


def _log_button(dialog: TrackerDialog):
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)


def test_the_dialog_checks_the_choice_and_remembers_it(qtbot, tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    session = tmp_path / "session"
    dialog = TrackerDialog(session)
    qtbot.addWidget(dialog)
    assert dialog.kind() == "tensorboard"  # the first time
    assert dialog.spec() == f"tensorboard:{session / 'tensorboard'}"
    assert _log_button(dialog).isEnabled() and dialog.experiment() is None
    dialog.mlflow.setChecked(True)
    assert not dialog.folder.isEnabled() and not dialog.choose.isEnabled()
    assert not _log_button(dialog).isEnabled()  # no tracking URI yet
    assert "tracking URI" in dialog.note.text()
    dialog.uri.setText("http://127.0.0.1:5000")
    dialog.experiment_name.setText("nightly")
    assert _log_button(dialog).isEnabled()
    assert (dialog.spec(), dialog.experiment()) == ("mlflow:http://127.0.0.1:5000", "nightly")
    _log_button(dialog).click()
    assert dialog.result() == TrackerDialog.DialogCode.Accepted

    again = TrackerDialog(tmp_path / "another")
    qtbot.addWidget(again)
    assert (again.spec(), again.experiment()) == ("mlflow:http://127.0.0.1:5000", "nightly")
    again.tensorboard.setChecked(True)
    assert again.spec() == f"tensorboard:{tmp_path / 'another' / 'tensorboard'}"  # its own


def test_the_dialog_says_what_to_install(qtbot, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard", None)  # as if it were not installed
    dialog = TrackerDialog(tmp_path)
    qtbot.addWidget(dialog)
    assert not _log_button(dialog).isEnabled()
    assert dialog.note.text() == (
        "--log-to tensorboard needs the tensorboard package: pip install tcprof[tensorboard]"
    )


def test_the_window_offers_it_beside_export_and_shows_the_warnings(make_window, qtbot, tmp_path):
    window = make_window(background=False)
    assert not window.commands.log_to.isEnabled()
    folder = tmp_path / "20250101-000000-simple"
    write_session(folder, time.time())
    assert window.sessions.open_session(folder)
    qtbot.waitUntil(window.commands.log_to.isEnabled)
    button = window.commands.toolbar.widgetForAction(window.commands.export)
    assert isinstance(button, QToolButton)
    assert window.commands.log_to in button.menu().actions()
    file_menu = window.menuBar().actions()[0].menu()
    assert window.commands.log_to in file_menu.actions()
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert window.sessions.log_to([f"tensorboard:{blocked}", f"tensorboard:{tmp_path / 'tb'}"])
    assert not window.commands.log_to.isEnabled()  # while it logs
    qtbot.waitUntil(lambda: "Warning: could not log" in window.notice.text(), timeout=60_000)
    text = window.notice.text().splitlines()
    assert text[0].startswith("logged to TensorBoard: ")
    assert text[1].startswith(f"Warning: could not log to tensorboard:{blocked}: ")
    assert text[2] == "The session is still saved in its folder: nothing is lost."
    assert window.commands.log_to.isEnabled()


def test_the_dialog_offers_wandb_with_its_project(qtbot, tmp_path, monkeypatch):
    """Empty: W&B's own WANDB_PROJECT and WANDB_ENTITY (`wandb`); a project W&B would refuse
    is the engine's one line, Log disabled; the project is remembered."""
    dialog = TrackerDialog(tmp_path)
    qtbot.addWidget(dialog)
    assert not dialog.project.isEnabled()
    dialog.wandb.setChecked(True)
    assert dialog.project.isEnabled() and not dialog.uri.isEnabled()
    assert (dialog.kind(), dialog.spec(), dialog.experiment()) == ("wandb", "wandb", None)
    assert _log_button(dialog).isEnabled()
    dialog.project.setText("team/a/b")
    assert not _log_button(dialog).isEnabled()
    assert dialog.note.text() == (
        "--log-to 'wandb:team/a/b': give wandb:PROJECT or wandb:ENTITY/PROJECT"
    )
    dialog.project.setText(" team/nightly ")
    assert dialog.spec() == "wandb:team/nightly" and _log_button(dialog).isEnabled()
    _log_button(dialog).click()
    again = TrackerDialog(tmp_path)
    qtbot.addWidget(again)
    assert (again.kind(), again.spec()) == ("wandb", "wandb:team/nightly")
