"""Sessions in the GUI: export, re-open, the Sessions list, compare, recovery, the Code, Profile
and Weights tabs, and the setup options that feed them. One real run (eager vs aot_eager) is
shared by the tests that need measured data; the rest use small hand-made sessions."""

from __future__ import annotations

import copy
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from tcprof.app.common.theme import muted_colour
from tcprof.app.results.compare_view import CompareDialog, direction_colour
from tcprof.app.sessions.dialog import SessionsDialog
from tcprof.app.sessions.store import list_sessions, synthesise_events
from tcprof.app.setup.saved_setup import SavedSetup
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.model.session import SessionModel
from tests.app.conftest import FAST_RUN_TIMEOUT_MS, configure_fast, write_session
from tests.support.paths import DATA


def _run(window, qtbot, **setup):
    configure_fast(window, batch_sizes="8, 16", warmup=1, steps=5)
    # fast_args's two blocks with no minimum length: the window's five of 100 ms or more are a
    # user's, and this test reads what a run leaves, not how long its blocks are
    window.setup.carried.set_options({"blocks": 2, "min_block_ms": 0.0})
    for key, value in setup.items():
        widget = getattr(window.setup, key)
        widget.setCurrentText(value) if isinstance(value, str) else widget.setValue(value)
    with qtbot.waitSignal(window.controller.runEnded, timeout=FAST_RUN_TIMEOUT_MS) as ended:
        window.start_run()
    return ended.args[0]


def _export(window, qtbot, folder: Path) -> None:
    assert window.sessions.export_to(folder)
    qtbot.waitUntil(lambda: not window.sessions.exporting, timeout=30_000)
    assert "Exported" in window.notice.text()


@pytest.mark.slow
def test_run_export_reopen_and_export_again_give_equal_reports(make_window, qtbot, tmp_path):
    window = make_window(background=False)
    assert _run(window, qtbot, save_weights="safetensors", profile_steps=2) == "completed"
    run_rows = window.results.rows()
    folder = window.controller.session_dir
    assert window.commands.export.isEnabled()

    # The weights option produced verified files, shown with their paths.
    weights = window.results.weights.rows()
    assert [r[0] for r in weights] == ["eager", "aot_eager"]
    for row in weights:
        assert Path(row[1]).is_file() and row[1].endswith(".safetensors")
        assert Path(row[1]).is_relative_to(folder)
        assert row[4] == "verified by strict load"
    # The torch.profiler pass fills the Profile tab per arm and batch size.
    ops = window.results.profile.rows()
    assert {(r[0], r[1]) for r in ops} == {
        (a, b) for a in ("eager", "aot_eager") for b in "8 16".split()
    }
    # The Code tab shows a script for the chosen arm that compiles.
    code = window.results.code
    assert code.arm.currentText() == "aot_eager"
    assert "torch.compile(model, backend='aot_eager'" in code.script()
    compile(code.script(), "reproduce.py", "exec")
    code.arm.setCurrentText("eager")
    compile(code.script(), "reproduce.py", "exec")
    assert "runner = model" in code.script()

    _export(window, qtbot, tmp_path / "from-run")
    exported = {p.name for p in (tmp_path / "from-run").iterdir()}
    assert {"report.html", "report.md", "steps.csv", "session.json", "reproduce.py"} <= exported
    html = (tmp_path / "from-run" / "report.html").read_text()
    assert "Top operators (torch.profiler)" in html

    # Re-open the saved session in a fresh window: same summary, plots, code; same exports.
    other = make_window(background=False)
    assert other.sessions.open_session(folder / "session.json")
    assert other.results.rows() == run_rows
    assert other.windowTitle().startswith("simple.py — session of ")
    assert other.plots.data.points == window.controller.data.points
    assert other.commands.run.isEnabled()
    assert other.results.weights.rows() == weights
    _export(other, qtbot, tmp_path / "from-saved")
    for name in ("report.md", "session.json", "steps.csv", "report.html", "reproduce.py"):
        assert (tmp_path / "from-saved" / name).read_text() == (
            tmp_path / "from-run" / name
        ).read_text(), name

    # events.jsonl opens too (Ctrl+O accepts it) and gives the same summary.
    assert other.sessions.open_session(folder / "events.jsonl")
    assert other.results.rows() == run_rows
    # A session.json alone (no events.jsonl beside it): plots come from its samples.
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy(folder / "session.json", lone / "session.json")
    other.open_path(str(lone / "session.json"))
    assert other.results.rows() == run_rows
    assert other.plots.data.points == window.controller.data.points
    markers = [m for t in other.plots.data.arms for m in t.markers]
    assert markers, "compile markers are synthesised from the session"

    # Compare the saved session (before) with itself as the window shows it (after): no change
    # in time or in memory, for every arm and batch size (one round: no interval to judge by).
    dialog = other.sessions.compare_with(folder)
    assert dialog is not None
    cells = [(r[0], r[1], r[3], r[4], r[10][-7:], r[11]) for r in dialog.rows()]
    assert cells == [
        (arm, bs, "±0.0% (one round: no interval)", "n/a", "(±0.0%)", "unchanged")
        for arm in ("eager", "aot_eager")
        for bs in ("8", "16")
    ]


def test_a_session_opened_and_run_again_runs_with_all_its_settings(make_window, qtbot, tmp_path):
    """A session made with `--blocks 3 --sequential` (settings the panel has no field for),
    opened and run again, runs with them; the window then shows the new run."""
    simple = str(example_path("simple"))
    write_session(
        tmp_path / "saved",
        1.0,
        config={
            "source": {"path": simple, "model": None, "factory": None, "input_shape": None},
            "arms": [{"backend": "eager"}, {"backend": "eager", "label": "eager again"}],
            "batch_sizes": [8],
            "warmup": 0,
            "steps": 3,
            "blocks": 3,
            "sequential": True,
            "min_block_ms": 0.0,
        },
    )
    window = make_window(background=False)
    assert window.sessions.open_session(tmp_path / "saved")
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(1.0))
    assert window.windowTitle() == f"simple.py — session of {when} — Torch Compile Profiler"
    assert window.setup.carried.text() == (
        "Also from the session: blocks=3, sequential, min_block_ms=0.0."
    )
    window.commands.run.trigger()  # a model named by a session runs once the user confirms
    assert [b.text() for b in window.notice.buttons] == ["Inspect and run"]
    with qtbot.waitSignal(window.controller.runEnded, timeout=FAST_RUN_TIMEOUT_MS) as ended:
        window.notice.buttons[0].click()
    assert ended.args == ["completed"]
    assert window.windowTitle() == "simple.py — Torch Compile Profiler"
    assert not window.sessions.saved and [r[0] for r in window.results.rows()] == [
        "eager",
        "eager again",
    ]
    folder = window.controller.session_dir
    config = json.loads((folder / "session.json").read_text())["config"]
    assert (config["blocks"], config["sequential"], config["min_block_ms"]) == (3, True, 0.0)
    assert (config["source"]["path"], config["steps"], config["warmup"]) == (simple, 3, 0)
    # Sequential: the first arm measures all its blocks before the second one starts.
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    blocks = [(e["arm"], e["block"]) for e in events if e["type"] == "block_done"]
    assert blocks == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]


def test_sessions_list_is_newest_first(private_home, qtbot):
    root = private_home / "sessions"
    now = time.time()
    write_session(root / "b-middle", now - 100)
    write_session(root / "a-newest", now)
    write_session(root / "c-oldest", now - 5000)
    (root / "no-session").mkdir()
    listed = list_sessions()
    assert [s.folder.name for s in listed] == ["a-newest", "b-middle", "c-oldest"]
    assert listed[0].arms == ("eager", "aot_eager") and listed[0].status == "completed"
    assert "simple.py" in listed[0].model
    dialog = SessionsDialog()
    qtbot.addWidget(dialog)
    assert [dialog.row_text(r)["name (folder)"] for r in range(3)] == [
        "a-newest",
        "b-middle",
        "c-oldest",
    ]
    assert not dialog.compare_button.isEnabled()  # nothing in the window to compare with
    dialog.set_can_compare(True)
    with qtbot.waitSignal(dialog.compareRequested) as asked:
        dialog.compare_button.click()
    assert asked.args == [str(root / "a-newest")]


def test_compare_view_shows_direction_with_colour(qtbot, tmp_path):
    before = write_session(tmp_path / "before", 1.0, median=2.0, rss=100.0)
    for arm in before["arms"]:  # three rounds: intervals
        row = arm["results"][0]
        row["process_medians_ms"] = [row["median_ms"] * f for f in (0.99, 1.0, 1.01)]
    after = copy.deepcopy(before)
    for arm in after["arms"][1:]:
        row = arm["results"][0]
        row["median_ms"] /= 2  # twice as fast
        row["process_medians_ms"] = [m / 2 for m in row["process_medians_ms"]]
    for arm in after["arms"]:
        arm["results"][0]["peak_rss_mb"] = 150.0  # more memory
    dialog = CompareDialog(
        SessionModel.from_json(before), SessionModel.from_json(after), "before", "after"
    )
    qtbot.addWidget(dialog)
    rows = dialog.rows()
    assert [(r[0], r[1], r[4], r[11]) for r in rows] == [
        ("eager", "8", "unchanged", "worse"),
        ("aot_eager", "8", "better", "worse"),
    ]
    assert rows[1][3].startswith("−50.0% [") and rows[1][10].endswith("(+50.0%)")
    assert dialog.table.item(1, 4).foreground().color() == direction_colour("better")
    assert dialog.table.item(1, 11).foreground().color() == direction_colour("worse")
    assert direction_colour("better") != direction_colour("worse")


def test_compare_view_of_sessions_sharing_nothing_says_so_in_a_neutral_colour(qtbot, tmp_path):
    before = write_session(tmp_path / "before", 1.0, median=2.0, rss=100.0)
    after = copy.deepcopy(before)
    for arm in after["arms"]:
        arm["name"] += "-renamed"
    dialog = CompareDialog(
        SessionModel.from_json(before), SessionModel.from_json(after), "before", "after"
    )
    qtbot.addWidget(dialog)
    assert dialog.rows() == []
    assert dialog.outcome.text().startswith("Nothing was compared")
    assert "Nothing got worse" not in dialog.outcome.text()
    assert muted_colour() in dialog.outcome.styleSheet()


def test_interrupted_session_is_recovered_and_the_user_told(make_window, qtbot, private_home):
    session = write_session(private_home / "sessions" / "crashed", time.time())
    folder = private_home / "sessions" / "crashed"
    (folder / "session.json").unlink()
    start = {"type": "run_start", "t": 0, "wall_time": time.time(), "config": session["config"]}
    steps = {"type": "steps", "t": 1, "arm": 0, "batch_size": 8, "phase": "measure", "start": 2,
             "ms": [1.0, 1.1]}  # fmt: skip
    (folder / "events.jsonl").write_text(json.dumps(start) + "\n" + json.dumps(steps) + "\n{tor")
    old = time.time() - 3600
    os.utime(folder / "events.jsonl", (old, old))
    window = make_window(background=False)
    window.sessions.recover_later(min_age_s=0)
    qtbot.waitUntil(lambda: "Recovered 1 interrupted session" in window.notice.text())
    saved = json.loads((folder / "session.json").read_text())
    assert saved["status"] == "interrupted"
    assert list_sessions()[0].status == "interrupted"
    assert window.sessions.open_session(folder)
    assert window.results.rows()[0][:2] == ["eager", "8"]


def test_a_file_that_is_not_a_session_is_reported_not_raised(make_window, tmp_path):
    window = make_window(background=False)
    bad = tmp_path / "session.json"
    bad.write_text('{"hello": 1}')
    assert not window.sessions.open_session(bad)
    assert "not a tcprof session" in window.banner.message.text()
    assert not window.sessions.open_session(tmp_path / "missing.json")
    assert not window.commands.export.isEnabled()


def test_weights_and_profile_options_map_to_the_config_and_persist(make_window):
    window = make_window(background=False)
    assert window.setup.config().save_weights is None
    window.setup.save_weights.setCurrentText("pt")
    window.setup.profile_steps.setValue(3)
    config = window.setup.config()
    assert config.save_weights == "pt" and config.profile_steps == 3
    assert "_orig_mod." in window.setup.save_weights.toolTip()
    assert "OptimizedModule" in window.setup.save_weights.toolTip()
    window.close()
    again = make_window(background=False)
    assert again.setup.save_weights.currentText() == "pt"
    assert again.setup.profile_steps.value() == 3


def test_synthesised_events_cover_steps_memory_and_markers():
    session = {
        "arms": [{"index": 0, "name": "a", "results": [{"batch_size": 4,
                                                         "compile_status": "compiled"}],
                  "recompiles": [{"batch_size": 4, "step": 3, "reason": "size"}]}],
        "samples": [{"arm": "a", "batch_size": 4, "warmup_ms": [1.0], "ms": [2.0, 3.0],
                     "memory": [[3, 10.0, None, None]]}],
        "logs": [{"arm": 0, "stream": "stdout", "text": "hi", "t": 0.1}],
    }  # fmt: skip
    kinds = [(e["type"], e.get("start"), e.get("kind")) for e in synthesise_events(session)]
    assert kinds == [
        ("steps", 1, None),
        ("steps", 2, None),
        ("memory", None, None),
        ("compile", None, "first"),
        ("compile", None, "recompile"),
        ("log", None, None),
    ]


def test_a_schema_1_session_opens_marked_as_measured_by_the_old_method(make_window, tmp_path):
    v1 = DATA / "session_v1.json"
    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(v1, folder / "session.json")
    window = make_window(background=False)
    assert window.sessions.open_session(folder / "session.json")
    rows = window.results.rows()
    assert [r[0] for r in rows] == ["eager", "aot_eager", "eager", "aot_eager"]
    assert "measured by the old method" in window.results.summary.toolTip()
    assert window.setup.measurement.replicates.value() >= 1


def test_measurement_options_map_to_the_config_persist_and_restore(make_window):
    window = make_window(background=False)
    m = window.setup.measurement
    config = window.setup.config()
    assert config.replicates == 1 and config.control is None and config.threads is None
    assert config.accuracy is True and config.warm_cache is False
    m.replicates.setValue(4)
    m.control.setCurrentIndex(m.control.findData("both"))
    m.threads.setValue(1)
    m.warm_cache.setChecked(True)
    m.accuracy.setChecked(False)
    config = window.setup.config()
    assert (config.replicates, config.control, config.threads) == (4, "both", 1)
    assert config.warm_cache is True and config.accuracy is False
    names = [a.name for a in config.run_arms]
    assert names[-2:] == ["eager-control", f"{names[1]}-control"], "the compiled twin too"
    assert "fresh process per arm" in m.replicates.toolTip()
    assert "equivalence within ±2%" in m.control.toolTip()
    window.close()
    again = make_window(background=False)
    assert again.setup.config().replicates == 4 and again.setup.config().control == "both"
    again.setup.measurement.set_options(
        SavedSetup.of({"replicates": "x", "threads": -3, "control": "nope"})
    )
    assert again.setup.config().replicates == 4, "malformed values are skipped"
    assert again.setup.config().control == "both"
    again.setup.measurement.set_options(
        SavedSetup.of({"control": True})
    )  # a session saved before schema 3
    assert again.setup.config().control == "eager"
    again.setup.measurement.set_options(SavedSetup.of({"control": None}))
    assert again.setup.config().control is None
