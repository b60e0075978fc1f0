"""The Measurement box's Replicates and Budget fields: left at auto, the window's run stops when
its answer is settled, at most at the last balanced look for the arms chosen (as `tcprof run`
without --replicates: analysis/stopping.py), within the Budget given; a value set is kept."""

from __future__ import annotations

import pytest

from tcprof.app.setup.setup_panel import SetupPanel
from tcprof.profiler.analysis.schedule import balance
from tcprof.profiler.config.examples import example_path


@pytest.fixture
def one_replicate():
    """The field's own default here, not the one round other window tests start with."""


@pytest.fixture
def panel(qtbot):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    panel.model.set_path(str(example_path("simple")))
    assert panel.is_valid()
    return panel


def _control(panel: SetupPanel, value: str | None) -> None:
    panel.measurement.control.setCurrentIndex(panel.measurement.control.findData(value))


@pytest.mark.parametrize(
    ("control", "arms", "rounds"), [(None, 2, 6), ("eager", 3, 12), ("both", 4, 8)]
)
def test_replicates_left_at_auto_stop_when_settled_at_most_at_a_balanced_look(
    panel, control, arms, rounds
):
    m = panel.measurement
    assert m.replicates.value() == 0 and m.replicates.text() == "auto", "the default is auto"
    _control(panel, control)
    config = panel.config()
    assert len(config.run_arms) == arms
    assert config.replicates == rounds and config.stop_early
    assert balance(arms, config.replicates).balanced


def test_the_budget_field_reaches_the_run_and_a_restore(panel, qtbot):
    m = panel.measurement
    assert m.budget.text() == "none" and panel.config().budget_s is None
    with qtbot.waitSignal(m.changed, timeout=1000):
        m.budget.setValue(60)
    assert panel.config().budget_s == 60.0
    state = panel.state()
    assert state["budget_s"] == 60.0
    m.budget.setValue(0)
    panel.restore(state)
    assert m.budget.value() == 60 and panel.config().budget_s == 60.0
    m.replicates.setValue(6)
    qtbot.waitUntil(lambda: not m.budget.isEnabled(), timeout=1000)
    config = panel.config()
    assert config.replicates == 6 and not config.stop_early and config.budget_s is None


def test_a_set_replicates_is_kept_and_auto_survives_a_restore(panel):
    _control(panel, "both")
    panel.measurement.replicates.setValue(6)
    assert panel.config().replicates == 6, "a value set is kept, balanced or not"
    panel.measurement.replicates.setValue(0)
    state = panel.state()
    assert state["replicates"] is None
    panel.measurement.replicates.setValue(3)
    panel.restore(state)
    assert panel.measurement.replicates.text() == "auto" and panel.config().replicates == 8
