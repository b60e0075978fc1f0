"""The run's options the summary table's notes read, typed: a block's least length, the
accuracy tolerances, an A/A control and the arms --apply-advice added; an old session without
them reads as not said."""

from __future__ import annotations

import pytest

from tcprof.profiler.model.options import RunOptions


def test_the_notes_options_are_read_typed():
    options = RunOptions.of(
        {
            "min_block_ms": 100,
            "accuracy_rtol": 0.01,
            "accuracy_atol": 0.001,
            "control": "eager",
            "added_arms": [{"backend": "inductor"}, {"backend": "aot_eager"}],
        }
    )
    assert options.min_block_ms == pytest.approx(100.0)
    assert (options.accuracy_rtol, options.accuracy_atol) == (0.01, 0.001)
    assert options.control and options.added_arms == 2


def test_an_old_session_without_them_reads_as_not_said():
    options = RunOptions.of({"steps": 5})
    assert options.min_block_ms is None and options.accuracy_rtol is None
    assert not options.control and options.added_arms == 0
