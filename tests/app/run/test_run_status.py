"""The status bar and the log panel read events through the engine's shared progress model
and event text: the same words as the terminal."""

from __future__ import annotations

from PySide6.QtGui import QStatusTipEvent
from PySide6.QtWidgets import QApplication

from tcprof.app.results.log_panel import LogPanel
from tcprof.app.run.estimate import RunEstimate
from tcprof.app.run.status import RunStatus
from tcprof.profiler.config import ArmSpec, ConfigError, ModelSource, RunConfig, ScriptSource
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.event_text import recompile_limit_hit
from tcprof.profiler.run.estimate import Prices, estimate


def _config() -> RunConfig:
    return RunConfig(
        ModelSource("m.py"),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(8,),
        steps=4,
        blocks=2,
        replicates=2,
    )


def test_the_status_bar_shows_round_arm_batch_size_phase_and_progress(qtbot):
    status = RunStatus()
    qtbot.addWidget(status)
    status.start(["eager", "aot_eager"], _config())
    assert status.text().startswith("starting workers… ")
    assert status.model.total == 2 * 1 * (2 + 1) * 2
    assert status.busy() and status.progress.maximum() == 0, "nothing to count yet: busy"
    status.update_from(
        [
            {"type": "round_start", "replicate": 0, "cache": "cold"},
            {"type": "phase", "arm": 1, "replicate": 0, "phase": "compiling", "batch_size": 8},
            {"type": "first_step", "arm": 1, "replicate": 0, "batch_size": 8, "ms": 900.0},
            {"type": "block_done", "arm": 1, "replicate": 0, "batch_size": 8, "steps": 2},
        ]
    )
    assert status.text().startswith("round 1/2 · aot_eager · bs 8 · compiling (first step)… ")
    assert status.busy()
    status.update_from(
        [{"type": "phase", "arm": 1, "replicate": 0, "phase": "measuring", "batch_size": 8}]
    )
    assert not status.busy()
    assert status.progress.maximum() == 12 and status.progress.value() == 2
    status.finish("Run completed")
    assert status.text() == "Run completed" and status.indicator.isHidden()


def test_the_log_panel_writes_the_shared_lines(qtbot):
    panel = LogPanel()
    qtbot.addWidget(panel)
    panel.start(["eager", "aot_eager"])
    panel.add_events(
        [
            {"type": "fallback", "arm": 1, "batch_size": 8, "frame": "forward"},
            {"type": "steps", "arm": 1, "batch_size": 8, "ms": [1.0]},
            {"type": "run_end", "status": "completed"},
        ]
    )
    assert panel.text.toPlainText().splitlines() == [
        "[aot_eager] bs 8: " + recompile_limit_hit("forward"),
        "[run] run completed",
    ]


def test_the_status_bar_counts_the_time_left_down_and_says_what_runs(qtbot):
    status = RunStatus()
    qtbot.addWidget(status)
    config = _config()
    status.start(["eager", "aot_eager"], config, estimate(config.to_dict(), Prices()))
    assert "time left ~" in status.text()
    assert status.activity() == "starting workers"
    before = status.time_left.seconds()
    status.update_from(
        [
            {"type": "round_start", "replicate": 0, "cache": "cold"},
            {"type": "loaded", "arm": 1, "replicate": 0},
            {"type": "phase", "arm": 1, "replicate": 0, "phase": "compiling", "batch_size": 8},
        ]
    )
    assert status.activity() == "compiling aot_eager, bs 8"
    assert status.time_left.seconds() < before
    status.finish("Run stopped")
    assert status.text() == "Run stopped" and status.time_left is None


def test_the_estimate_next_to_run_says_what_it_rests_on(qtbot):
    config: list[RunConfig] = [_config()]

    def current() -> RunConfig:
        if not config:
            raise ConfigError("no model")
        return config[0]

    label = RunEstimate(current, read_prices=lambda _config: Prices())
    qtbot.addWidget(label)
    label.timer.setInterval(10)  # the setup is re-read twice a second; a test need not wait
    qtbot.waitUntil(lambda: label.text().startswith("about "))
    assert label.text().endswith("; rough: no earlier run of this model")
    config.clear()
    qtbot.waitUntil(lambda: label.text() == "")
    label.shutdown()


def test_an_unreadable_history_leaves_a_rough_estimate(qtbot):
    def unreadable(_config):
        raise OSError("permission denied")

    label = RunEstimate(_config, read_prices=unreadable)
    qtbot.addWidget(label)
    label.timer.setInterval(10)
    qtbot.waitUntil(lambda: label.text().endswith("rough: no earlier run of this model"))
    label.shutdown()


def test_the_run_indicator_outlasts_a_hovered_buttons_hint_and_counts_seconds(make_window, qtbot):
    """The compile wait's sign is a permanent widget of the status bar: a toolbar button's
    status tip (a temporary message) covers the ordinary status text, never the indicator."""
    window = make_window(background=False)
    status = window.status
    now = [1000.0]
    status.clock = lambda: now[0]
    status.start(["eager", "inductor"], _config())
    assert status.indicator.isVisible()
    status.update_from(
        [{"type": "phase", "arm": 1, "replicate": 0, "phase": "compiling", "batch_size": 16}]
    )
    assert status.phase.text() == "compiling inductor, bs 16 · 0 s"
    assert status.busy() and status.progress.maximum() == 0, "busy, not stuck at 1%"

    hovered = window.commands.toolbar.widgetForAction(window.commands.diagnose)
    QApplication.sendEvent(hovered, QStatusTipEvent("Run the backend ladder"))
    bar = window.statusBar()
    assert bar.currentMessage() == "Run the backend ladder", "the hint is shown..."
    assert not status.label.isVisible(), "...over the ordinary status text"
    assert status.indicator.isVisible() and status.phase.isVisible()
    assert status.phase.text() == "compiling inductor, bs 16 · 0 s"
    bar.showMessage("model.py changed on disk: re-inspected", 10_000)
    assert status.indicator.isVisible()

    now[0] += 12.4  # the compile goes on, with no event: the timer redraws the seconds
    qtbot.waitUntil(lambda: status.phase.text() == "compiling inductor, bs 16 · 12 s", timeout=2000)
    now[0] += 1.0
    qtbot.waitUntil(lambda: status.phase.text().endswith(" · 13 s"), timeout=2000)
    assert bar.currentMessage(), "still hovered: the indicator was redrawn under the hint"
    status.finish("Run completed")
    assert status.indicator.isHidden()


def _script_config() -> RunConfig:
    path = "/tmp/train.py"
    return RunConfig(
        ModelSource(path),
        script=ScriptSource(path=path),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        steps=4,
        blocks=2,
    )


def test_a_scripts_status_and_logs_say_no_batch_size(qtbot):
    """A script without a sweep has one phase, sent as batch size 1: neither the status bar
    nor the Logs tab calls it "bs 1"."""
    status = RunStatus()
    qtbot.addWidget(status)
    config = _script_config()
    status.start(["eager", "aot_eager"], config)
    events = [
        {"type": "run_start", "config": config.to_dict()},
        {"type": "phase", "arm": 1, "replicate": 0, "phase": "compiling", "batch_size": 1},
        {"type": "first_step", "arm": 1, "replicate": 0, "batch_size": 1, "ms": 900.0},
    ]
    status.update_from(events[1:2])
    assert status.activity() == "compiling aot_eager"
    panel = LogPanel()
    qtbot.addWidget(panel)
    panel.start(["eager", "aot_eager"])
    panel.add_events(events)
    assert "first step 0.90 s" in panel.text.toPlainText()
    assert "bs 1" not in panel.text.toPlainText()


def test_a_finished_run_says_why_it_stopped(qtbot):
    status = RunStatus()
    qtbot.addWidget(status)
    stopping = {"reason": "budget", "rounds": 6, "looks": [4, 8], "level": 0.9696}
    session = SessionModel.from_json({"stopping": {**stopping, "budget_s": 60.0}})
    status.finish_run("completed", session, "/s/run")
    assert status.label.text() == (
        "Run completed · budget 1 min spent after 6 rounds (97.0% intervals, adjusted for "
        "stopping) · saved in /s/run"
    )
    status.finish_run("completed_with_errors", SessionModel.from_json({"stopping": None}))
    assert status.label.text() == "Run completed with errors"
