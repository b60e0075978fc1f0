"""Click-through runs of the real engine from the window: Run, live data, summary, saving,
Stop, a second run, closing mid-run. Fast backends only (eager, aot_eager)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolBar

from tcprof.app.window.close_guard import question_text, stop_and_close
from tests.app.conftest import FAST_RUN_TIMEOUT_MS, configure_fast
from tests.support.processes import worker_processes

LONG_STEPS = 1_000_000


def _worker_pids() -> list[int]:
    return [p.pid for p in worker_processes()]


def _press_run(qtbot, window) -> None:
    toolbar = window.findChildren(QToolBar)[0]
    qtbot.mouseClick(toolbar.widgetForAction(window.commands.run), Qt.MouseButton.LeftButton)


def test_window_opens_with_the_simple_example_ready(window, qtbot):
    assert window.windowTitle() == "simple.py — Torch Compile Profiler"
    assert Path(window.setup.model.current_path()).name == "simple.py"
    assert [a.name for a in window.setup.arms.arms()] == ["eager", "inductor"]
    assert window.commands.run.isEnabled()
    assert window.commands.run.shortcut().toString() == "Ctrl+R"
    assert window.commands.stop.shortcut().toString() == "Esc"
    assert window.commands.quit.shortcut().toString() == "Ctrl+Q"
    # Inspection and the environment probe answer in the background.
    qtbot.waitUntil(lambda: "11 parameters" in window.setup.model.summary.text(), timeout=60_000)
    assert "(B, 10)" in window.setup.model.summary.text()
    qtbot.waitUntil(lambda: window.environment is not None, timeout=60_000)
    assert "inductor" in window.setup.arms.backends
    assert window.setup.device.findText("cpu") >= 0


def test_click_through_eager_vs_aot_eager_fills_the_summary(window, qtbot, private_home):
    configure_fast(window, accuracy=True)
    with qtbot.waitSignal(window.controller.runEnded, timeout=FAST_RUN_TIMEOUT_MS) as ended:
        _press_run(qtbot, window)
        assert window.commands.stop.isEnabled() and not window.commands.run.isEnabled()
    assert ended.args == ["completed"]
    rows = window.results.rows()
    # grouped by batch size ("ok (2/4 blocks contended)" on a busy machine is still ok)
    assert [(r[0], r[1], r[2].split(" (")[0]) for r in rows] == [
        ("eager", "32", "ok"),
        ("aot_eager", "32", "ok"),
        ("eager", "64", "ok"),
        ("aot_eager", "64", "ok"),
    ]
    header = window.results.header()
    speedup = rows[1][header.index("speedup [95% CI]")]
    # one round: no interval until a second round shows the processes' spread, so no figure
    assert speedup == "not settled (one round)", speedup
    assert rows[1][header.index("accuracy")] == "pass"
    assert rows[3][header.index("recompiles")] == "1"  # bs 64 recompiles (dynamic=None)
    # Saved under $TCPROF_HOME/sessions/<id>/.
    folder = window.controller.session_dir
    assert folder.parent == private_home / "sessions"
    saved = json.loads((folder / "session.json").read_text())
    # Live data reached the plots: every warm-up and measured step of 2 arms x 2 batch sizes
    # (a block runs at least its minimum time, so there may be more than the 10 asked for).
    counts = [r["warmup_steps"] + r["steps"] for a in saved["arms"] for r in a["results"]]
    assert all(c >= 12 for c in counts) and window.controller.data.points == sum(counts)
    assert window.controller.data.arms[1].markers, "compile markers"
    assert saved["status"] == "completed" and len(saved["arms"]) == 2
    assert (folder / "events.jsonl").stat().st_size > 0
    assert (folder / "steps.csv").read_text().startswith("arm,batch_size,replicate,block,step")
    assert window.commands.run.isEnabled() and not window.commands.stop.isEnabled()
    assert "completed" in window.status.text()
    assert window.results.environment.rowCount() > 3


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_stop_mid_run_keeps_what_was_measured_and_a_second_run_works(window, qtbot):
    configure_fast(window, arms=("eager",), batch_sizes="32", warmup=0, steps=LONG_STEPS)
    phases = []
    window.controller.eventsArrived.connect(
        lambda events: phases.extend(
            (e["arm"], e["phase"], e["batch_size"]) for e in events if e["type"] == "phase"
        )
    )
    window.commands.run.trigger()
    qtbot.waitUntil(lambda: window.controller.data.points > 200, timeout=FAST_RUN_TIMEOUT_MS)
    # No warm-up asked for: the eager arm loads, takes its first step, then measures.
    assert phases == [(0, "loading", None), (0, "first_step", 32), (0, "measuring", 32)]
    assert window.status.text().startswith("eager · bs 32 · measuring… ")
    with qtbot.waitSignal(window.controller.runEnded, timeout=5_000) as ended:
        t0 = time.monotonic()
        qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert time.monotonic() - t0 < 2.0
    assert ended.args == ["stopped"]
    assert not _worker_pids()
    rows = window.results.rows()
    assert rows and rows[0][0] == "eager" and rows[0][3] != "-"  # the median was kept
    assert rows[0][2].startswith("stopped at ") and rows[0][2].endswith(f"/{LONG_STEPS}")
    assert rows[0][3].endswith("(partial)")
    saved = json.loads((window.controller.session_dir / "session.json").read_text())
    assert saved["status"] == "stopped"
    assert saved["arms"][0]["results"][0]["steps"] > 100

    configure_fast(window, arms=("eager",), batch_sizes="16", warmup=1, steps=5)
    with qtbot.waitSignal(window.controller.runEnded, timeout=FAST_RUN_TIMEOUT_MS) as ended:
        qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert ended.args == ["completed"]
    assert [r[1] for r in window.results.rows()] == ["16"]


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_closing_the_window_mid_run_asks_then_stops_it_first(make_window, qtbot):
    window = make_window(background=False)
    configure_fast(window, arms=("eager",), batch_sizes="32", warmup=0, steps=LONG_STEPS)
    window.commands.run.trigger()
    qtbot.waitUntil(lambda: window.controller.data.points > 0, timeout=FAST_RUN_TIMEOUT_MS)
    asked: list[str] = []

    def answer(box):
        asked.append(box.text())
        return stop_and_close(box)

    window.close_guard.answer = answer
    t0 = time.monotonic()
    window.close()
    assert asked == [question_text("measuring eager, bs 32")]
    assert time.monotonic() - t0 < 5.0
    assert window.controller.thread is None
    assert window.controller.status == "stopped"
    assert not _worker_pids()
    assert (window.controller.session_dir / "session.json").exists()
