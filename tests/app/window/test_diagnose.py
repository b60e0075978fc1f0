"""Diagnose… runs the backend ladder on the current setup; Apply and re-run runs it with the
advice tcprof can apply. The runs go through the scripted fake worker (no torch)."""

from __future__ import annotations

import pytest

from tcprof.app.window.diagnose import CONFIRM_FIRST, ladder_config
from tcprof.profiler.analysis.ladder import DEFAULT_STAGES, STAGE_TEXT
from tcprof.profiler.config import DYNAMO_EAGER
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.run.runner import Runner
from tests.app.conftest import configure_fast
from tests.support.fake_worker import FakeWorkers


@pytest.fixture
def fake_window(make_window, tmp_path, monkeypatch):
    """A window whose runs use the fake worker; the configs they were given are kept."""
    monkeypatch.setenv("TCPROF_HOME", str(tmp_path / "home"))
    configs = []

    def runner(config, listeners):
        configs.append(config)
        return Runner(config, listeners, worker_factory=FakeWorkers())

    window = make_window(background=False, runner_factory=runner)
    configure_fast(window, arms=("eager", "inductor"), batch_sizes="8", warmup=1, steps=4)
    window.setup.measurement.accuracy.setChecked(False)
    window.configs = configs
    return window


def _asked(window, qtbot):
    """Diagnose… pressed: its question, with nothing started yet."""
    window.commands.diagnose.trigger()
    dialog = window.variants.dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    assert not window.controller.running and window.configs == [], "nothing runs unasked"
    return dialog


def test_diagnose_asks_first_with_the_stages_and_the_estimate(fake_window, qtbot):
    window = fake_window
    dialog = _asked(window, qtbot)
    assert dialog.isModal() and dialog.parent() is window
    stages = dialog.stage_rows()
    assert [row[0] for row in stages] == [
        "eager",
        DYNAMO_EAGER,
        "aot_eager",
        "aot_eager_decomp_partition",
        "inductor",
    ]
    assert stages[0][1] == "the baseline: not compiled"
    assert stages[-1][1] == STAGE_TEXT["inductor"]
    assert all(row[2].endswith(" s") or "min" in row[2] for row in stages), stages
    assert "5 arms" in dialog.intro.text() and "batch size 8:" in dialog.intro.text()
    expected = window.run_estimate.for_config(ladder_config(window.setup.config()))
    assert dialog.estimate.text() == f"<b>Estimated duration: {expected.text()}</b>"
    assert expected.seconds > 0 and expected.text().startswith("about ")
    assert [dialog.start_button.text(), dialog.cancel_button.text()] == ["Start", "Cancel"]
    window.commands.diagnose.trigger()  # asked again while it is open: the same question
    assert window.variants.dialog is dialog

    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: window.variants.dialog is None, timeout=2000)
    assert not window.controller.running and window.configs == [], "Cancel runs nothing"
    assert not window.variants.config(window.setup.config).ladder, "nothing left pending"

    dialog = _asked(window, qtbot)
    dialog.reject()  # Escape, or the window's close button
    qtbot.waitUntil(lambda: window.variants.dialog is None, timeout=2000)
    assert window.configs == [] and window.variants.dialog is None


def test_diagnose_runs_the_ladder_and_shows_it(fake_window, qtbot):
    window = fake_window
    assert window.commands.diagnose in window.commands.toolbar.actions()
    dialog = _asked(window, qtbot)
    with qtbot.waitSignal(window.controller.runEnded, timeout=30_000):
        dialog.start_button.click()
    (config,) = window.configs
    assert config.ladder and not config.apply_advice
    assert [a.backend for a in config.arms] == list(DEFAULT_STAGES)
    assert config.batch_sizes == (8,) and config.steps == 4, "the setup's other settings"
    insight = window.results.insight
    assert window.results.currentWidget() is insight
    assert insight.details.currentWidget() is insight.ladder
    stages = [row[0] for row in insight.ladder.table_rows()]
    assert stages == ["eager", DYNAMO_EAGER, "aot_eager", "aot_eager_decomp_partition", "inductor"]

    next_run = window.variants.config(window.setup.config)
    assert not next_run.ladder, "Diagnose applies to its own run only"


def test_apply_and_rerun_runs_the_same_setup_with_the_advice(fake_window, qtbot):
    window = fake_window
    with qtbot.waitSignal(window.controller.runEnded, timeout=30_000):
        window.results.insight.applyAdviceRequested.emit()
    (config,) = window.configs
    assert config.apply_advice and not config.ladder
    assert [a.backend for a in config.arms] == ["eager", "inductor"]
    assert window.results.currentWidget() is window.results.insight


def test_diagnose_follows_run_being_enabled(fake_window):
    window = fake_window
    window.setup.batch_sizes.setText("not a number")
    assert not window.commands.run.isEnabled()
    assert not window.commands.diagnose.isEnabled()
    assert not window.results.insight.apply_advice.isEnabled()
    assert window.commands.diagnose.toolTip() == window.commands.run.toolTip()
    window.setup.batch_sizes.setText("8")
    assert window.commands.diagnose.isEnabled()


def test_a_model_from_a_session_is_confirmed_before_diagnose_runs_it(fake_window):
    window = fake_window
    window.setup.model.set_path(str(example_path("simple")), trusted=False)
    window.commands.diagnose.trigger()
    assert not window.controller.running and window.configs == []
    assert window.variants.dialog is None, "confirmed first, asked after"
    assert [b.text() for b in window.notice.buttons] == ["Inspect"], "inspect only, no run"
    assert window.status.label.text() == CONFIRM_FIRST
    window.notice.dismiss.click()
    assert not window.variants.config(window.setup.config).ladder, "nothing left pending"
