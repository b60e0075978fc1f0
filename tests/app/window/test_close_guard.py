"""Closing the window mid-run asks first: Cancel keeps the window and the run, Stop and close
stops it (what was measured is kept, marked partial) and closes. Scripted fake workers: no
worker process starts."""

from __future__ import annotations

import functools

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from tcprof.app.window.close_guard import CloseGuard, ask_with_dialog, question_text, stop_and_close
from tcprof.profiler.run.runner import Runner
from tests.app.conftest import configure_fast
from tests.support.fake_worker import ArmScript, FakeWorkers, Fault


def _click_when_shown(label: str, seen: list[str]) -> QTimer:
    """Press the question's button called `label` as soon as the dialog is up."""
    timer = QTimer()

    def look() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QMessageBox) and widget.isVisible():
                seen.append(widget.text())
                timer.stop()
                next(b for b in widget.buttons() if b.text() == label).click()

    timer.timeout.connect(look)
    timer.start(10)
    return timer


def test_closing_mid_run_asks_cancel_keeps_the_run_stop_and_close_ends_it(
    make_window, qtbot, private_home
):
    fakes = FakeWorkers({1: ArmScript(faults=(Fault("measure", "hang", block=1),))})
    runner = functools.partial(Runner, worker_factory=fakes)
    window = make_window(background=False, runner_factory=runner)
    configure_fast(window, batch_sizes="8", warmup=0, steps=50)  # blocks of 10 steps
    window.run_estimate.timer.setInterval(10)
    qtbot.waitUntil(lambda: window.run_estimate.text().startswith("about "))
    assert window.run_estimate.isVisible(), "the estimate stands next to Run"
    window.start_run()
    qtbot.waitUntil(lambda: not window.run_estimate.isVisible())  # the status bar has time left
    qtbot.waitUntil(lambda: fakes.hanging.is_set(), timeout=10_000)
    qtbot.waitUntil(lambda: window.status.activity() == "measuring aot_eager, bs 8")

    seen: list[str] = []
    clicker = _click_when_shown("Cancel", seen)  # the real dialog, answered by its button
    window.close_guard.answer = ask_with_dialog
    try:
        window.close()
    finally:
        clicker.stop()
        window.close_guard.answer = stop_and_close
    assert seen == [question_text("measuring aot_eager, bs 8")]
    assert seen[0] == (
        "A run is in progress (measuring aot_eager, bs 8). Stop it and close? "
        "What was measured is kept."
    )
    assert window.isVisible() and window.controller.running, "Cancel keeps both"

    window.close()  # the fixture's windows answer Stop and close
    assert not window.isVisible()
    assert window.controller.thread is None and window.controller.status == "stopped"
    assert all(not w.alive() for w in fakes.workers)
    rows = {r[0]: r for r in window.results.rows()}
    assert rows["aot_eager"][2] == "stopped at 10/50", "what was measured is kept, partial"
    assert rows["aot_eager"][3].endswith("(partial)")


def test_nothing_is_asked_when_no_run_is_in_progress(qtbot):
    asked = []
    guard = CloseGuard(None, lambda: False, lambda: "", answer=asked.append)
    assert guard.may_close() and asked == []
    running = CloseGuard(None, lambda: True, lambda: "", answer=lambda box: None)
    assert not running.may_close(), "a dialog closed without an answer keeps the run"
    assert (
        question_text("") == "A run is in progress. Stop it and close? What was measured is kept."
    )
