"""The window and bad files or folders: the Sessions list shows an unreadable folder as such and
lists the rest, opening a bad session is a one-line banner, an unwritable TCPROF_HOME ends the
run at once with a banner, and a log that cannot be written is one log line while the run goes
on to save its session."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tcprof.app.run.profiler_thread import ProfilerThread
from tcprof.app.run.run_controller import RunController
from tcprof.app.sessions.dialog import SessionsDialog
from tcprof.app.sessions.store import UNREADABLE, list_sessions
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.folders.files import EVENTS_JSONL, SESSION_JSON
from tcprof.profiler.run import recorded
from tcprof.profiler.run.runner import Runner
from tests.app.conftest import write_session
from tests.support.fake_worker import FakeWorkers


def _bad_folders(root: Path) -> dict[str, tuple[str, str]]:
    """Folders whose session.json cannot be opened: the reason the list gives for each, and
    what opening it says after the file's path."""
    wrong = root / "wrong-types"
    session = write_session(wrong, time.time())
    session["arms"][1]["results"][0]["median_ms"] = "fast"
    (wrong / SESSION_JSON).write_text(json.dumps(session))
    deep = root / "deep"
    deep.mkdir()
    (deep / SESSION_JSON).write_text('{"arms": ' + "[" * 10_000 + "]" * 10_000 + "}")
    fifo = root / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / SESSION_JSON)
    text = root / "not-json"
    text.mkdir()
    (text / SESSION_JSON).write_text("garbage")
    median = "arms[1].results[0].median_ms is a string, expected a number"
    return {
        "wrong-types": (f"session.json: {median}", f"session.json: {median}"),
        "deep": ("session.json nests deeper than 64 levels", "session.json nests deeper than 64"),
        "fifo": (
            "cannot read session.json (session.json is not a regular file)",
            "session.json is not a regular file",
        ),
        "not-json": ("session.json is not a tcprof session", "session.json is not valid JSON"),
    }


def test_the_sessions_list_shows_unreadable_folders_and_lists_the_rest(private_home, qtbot):
    root = private_home / "sessions"
    now = time.time()
    write_session(root / "good-new", now)
    write_session(root / "good-old", now - 100)
    reasons = _bad_folders(root)
    listed = {s.folder.name: s for s in list_sessions()}
    assert set(listed) == {"good-new", "good-old", *reasons}
    for name, (reason, _) in reasons.items():
        assert (listed[name].status, listed[name].problem) == (UNREADABLE, reason), name
    assert listed["good-new"].problem is None and listed["good-new"].status == "completed"

    dialog = SessionsDialog()
    qtbot.addWidget(dialog)
    columns = ["date", "model", "arms", "status"]
    rows = {
        cells["name (folder)"]: [cells[c] for c in columns]
        for cells in (dialog.row_text(r) for r in range(dialog.table.rowCount()))
    }
    assert rows["good-new"][2:] == ["eager, aot_eager", "completed"]
    assert rows["deep"] == ["?", reasons["deep"][0], "", UNREADABLE]
    dialog.set_can_compare(True)
    dialog.select_folder(root / "fifo")
    assert not dialog.open_button.isEnabled() and not dialog.compare_button.isEnabled()
    assert dialog.folder_button.isEnabled()
    dialog.select_folder(root / "good-old")
    assert dialog.open_button.isEnabled() and dialog.compare_button.isEnabled()


def test_opening_a_bad_session_is_a_one_line_banner(make_window, tmp_path):
    window = make_window(background=False)
    reasons = _bad_folders(tmp_path)
    for name, (_, said) in reasons.items():
        window.banner.clear()
        assert not window.sessions.open_session(tmp_path / name)
        text = window.banner.text()
        assert "\n" not in text and text.startswith("run: open error: "), text
        assert f"{tmp_path / name}/{said}" in text, text


def _config() -> RunConfig:
    return RunConfig(
        source=ModelSource("model.py"),  # the fake workers load nothing
        arms=(ArmSpec("eager"),),
        batch_sizes=(8,),
        warmup=1,
        steps=4,
        blocks=2,
        replicates=1,
        min_block_ms=0,
        threads=1,
        accuracy=False,
        timeout_s=10,
    )


def _fake_runner(config, listeners):
    return Runner(config, listeners, worker_factory=FakeWorkers())


def test_an_unwritable_home_ends_the_run_at_once_with_the_reason(qtbot, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.write_text("a file where the folder should be")
    monkeypatch.setenv("TCPROF_HOME", str(home))
    controller = RunController(runner_factory=_fake_runner)
    said: list[str] = []
    controller.runStarted.connect(lambda: said.append("started"))
    controller.runEnded.connect(said.append)
    with qtbot.waitSignal(controller.runEnded, timeout=5_000):
        controller.start(_config())
        assert said == ["started"], "the end comes after start() has returned"
    assert said == ["started", "failed"]
    assert not controller.running and controller.session_dir is None
    assert controller.save_error == (
        f"cannot save sessions in {home / 'sessions'}: {home} is a file, not a folder "
        "(set TCPROF_HOME to a folder you can write to)"
    )


def test_the_window_says_why_a_run_cannot_start(make_window, qtbot, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.write_text("")
    monkeypatch.setenv("TCPROF_HOME", str(home))
    window = make_window(background=False)
    with qtbot.waitSignal(window.controller.runEnded, timeout=5_000):
        window.start_run()
    assert window.banner.text().startswith(f"run: save error: cannot save sessions in {home}")
    assert not window.controller.running


def test_a_log_that_cannot_be_written_is_one_line_and_the_session_is_saved(
    qtbot, tmp_path, monkeypatch
):
    monkeypatch.setenv("TCPROF_HOME", str(tmp_path / "home"))
    opened = recorded.open_event_log

    def blocked(folder, **kwargs):  # the log cannot even be opened
        (folder / EVENTS_JSONL).mkdir()
        return opened(folder, **kwargs)

    monkeypatch.setattr(recorded, "open_event_log", blocked)
    thread = ProfilerThread(_config(), [], _fake_runner, save=True)
    folder = thread.session_dir
    with qtbot.waitSignal(thread.finished, timeout=20_000):
        thread.start()
    thread.wait()
    relayed = thread.take_events()
    warnings = [e for e in relayed if e["type"] == "log" and e.get("stream") == "tcprof"]
    assert len(warnings) == 1 and "events.jsonl could not be written" in warnings[0]["text"]
    assert thread.save_error is None and thread.session.status == "completed"
    saved = json.loads((folder / SESSION_JSON).read_text())
    assert len(saved["samples"][0]["ms"]) == 4, "what was measured is saved"
    assert warnings[0]["text"] in [line["text"] for line in saved["logs"]]
    assert not (folder / ".lock").exists(), "the run's lock ends with it"
