"""What `--apply-advice` did, read back typed (run/apply_advice.py's `AppliedAdvice`): the
terminal's summary and the window read attributes, not the session's keys."""

from __future__ import annotations

import pytest

from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.run.apply_advice import AppliedAdvice, before_after

pytestmark = pytest.mark.timeout(30)


def _session() -> dict:
    recompile = {"reason": "tensor 'x' size mismatch", "batch_size": 16}
    return {
        "status": "completed",
        "config": {
            "batch_sizes": [8],
            "applied_advice": [{"from_arm": 1, "arm": 2, "apply": "mark_dynamic=0"}],
        },
        "arms": [
            {"index": 0, "name": "eager", "backend": "eager", "results": []},
            {"index": 1, "name": "inductor", "backend": "inductor", "recompiles": [recompile] * 3},
            {"index": 2, "name": "inductor + mark_dynamic=0", "backend": "inductor"},
        ],
    }


def test_applied_advice_is_a_typed_record_the_summary_reads():
    (applied,) = before_after(_session())
    assert applied == AppliedAdvice("inductor", "inductor + mark_dynamic=0", "mark_dynamic=0", 3, 0)
    assert (
        "applied advice (mark_dynamic=0): inductor recompiled 3 time(s), "
        "inductor + mark_dynamic=0 0" in render_summary(SessionModel.read(_session()))
    )


def test_an_advice_whose_arms_are_missing_is_left_out():
    session = _session()
    session["arms"] = session["arms"][:2]
    assert before_after(session) == []
