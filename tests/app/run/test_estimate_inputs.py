"""The estimate next to Run reads the setup typed: its history is read for the RunConfig, and
the chosen model's inspection prices its step with the probe the worker sent."""

from __future__ import annotations

import pytest

from tcprof.app.run.estimate import RunEstimate
from tcprof.profiler.config import ModelSource, RunConfig
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.process.inspected import Inspection
from tcprof.profiler.run.estimate import Prices, estimate

pytestmark = pytest.mark.timeout(60)


def test_the_history_is_read_for_the_config_and_the_inspection_prices_the_step(qtbot):
    config = RunConfig(ModelSource(str(example_path("simple"))), batch_sizes=(32,))
    probe = {"ms_at": {"32": 250.0}, "modules": 4}
    inspection = Inspection.of({"chosen": "M", "params": 5, "probe": probe})
    asked: list[object] = []

    def read(config: RunConfig) -> Prices:
        asked.append(config)
        return Prices()

    label = RunEstimate(lambda: config, read_prices=read, probe=lambda: inspection)
    qtbot.addWidget(label)
    label.timer.setInterval(10)
    expected = estimate(config.to_dict(), Prices().with_probe(probe)).text()
    assert expected != estimate(config.to_dict(), Prices()).text()  # the probe changes it
    qtbot.waitUntil(lambda: label.text() == expected)
    assert asked == [config]
    assert label.for_config(config).text() == expected
    label.shutdown()
