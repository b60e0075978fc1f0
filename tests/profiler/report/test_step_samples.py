"""report.html's step samples read once into typed records (html.py `StepSample`): where each
block is drawn, an older session's steps after its warm-up, and the chart data as before."""

from __future__ import annotations

import pytest

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import StepSample, chart_data
from tests.support.synthetic import synthetic_session

pytestmark = pytest.mark.timeout(60)


def test_blocks_are_drawn_after_the_warmup_and_each_discarded_step():
    raw = {"arm": 1, "batch_size": 8, "warmup_ms": [5.0, 5.0], "ms": [1.0] * 5}
    sample = StepSample.of({**raw, "blocks": [[0, 0, 2], [1, 0, 2], [0, 1, 9], "bad"]}, warmup=2)
    # round 0: x 4..5 then 7..7 (the last block has one step left); round 1: x 4..5
    assert sample.runs == [[0, 4, 0, 2], [1, 4, 2, 2], [0, 7, 4, 1]]
    assert sample.arm == 1 and sample.batch_size == 8 and sample.memory == []


def test_an_older_sample_without_blocks_follows_its_warmup():
    sample = StepSample.of({"batch_size": 4, "warmup_ms": [5.0] * 3, "ms": [1.0, 1.0]}, 2)
    assert sample.runs == [[0, 4, 0, 2]]
    assert StepSample.of({"batch_size": 4}, 2).runs == []


def test_the_chart_data_holds_each_sample_as_saved():
    model = SessionModel.from_json(synthetic_session())
    samples = chart_data(model)["samples"]
    assert samples and list(samples[0]) == [
        "arm",
        "batch_size",
        "warmup_ms",
        "ms",
        "runs",
        "memory",
    ]
    assert all(s["runs"] for s in samples)
