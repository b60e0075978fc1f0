"""The Measurement box's Replicates field: left at auto, the window's run has the fewest rounds
that balance the arms chosen (config.balanced_rounds, as `tcprof run` without --replicates); a
value set is kept."""

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
    ("control", "arms", "rounds"), [(None, 2, 6), ("eager", 3, 6), ("both", 4, 8)]
)
def test_replicates_left_at_auto_balance_the_arms_chosen(panel, control, arms, rounds):
    m = panel.measurement
    assert m.replicates.value() == 0 and m.replicates.text() == "auto", "the default is auto"
    _control(panel, control)
    config = panel.config()
    assert len(config.run_arms) == arms
    assert config.replicates == rounds
    assert balance(arms, config.replicates).balanced


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
