"""A ladder session's summary is typed in the model (model/ladder.py), and the ladder section
reads it: the model and its session.json dict give the same rows and verdict; a session that is
not a ladder has none."""

from __future__ import annotations

import pytest

from tcprof.profiler.model.ladder import Ladder
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections import ladder as ladder_section

pytestmark = pytest.mark.timeout(30)

LADDER = {
    "stages": [
        {"stage": "eager", "what": "eager PyTorch", "accuracy": "baseline", "fell_back": [],
         "per_batch_size": [{"batch_size": 8, "median_ms": 10.0, "steady_peak_mb": 5.0}]},
        {"stage": "aot_eager", "what": "AOTAutograd", "accuracy": "fail", "fell_back": [16],
         "forward_only": True,
         "per_batch_size": [{"batch_size": 8, "median_ms": 11.0, "added_ms": 1.0,
                             "compile_s": 0.5}]},
    ],
    "all_fell_back": False,
    "first_divergence": "aot_eager",
    "minifier": "TORCHDYNAMO_REPRO_AFTER=aot python model.py",
}  # fmt: skip


def test_the_ladder_is_typed_and_read_from_the_model():
    model = SessionModel.from_json({"arms": [], "ladder": LADDER})
    ladder = model.ladder
    assert isinstance(ladder, Ladder)
    assert [s.stage for s in ladder.stages] == ["eager", "aot_eager"]
    second = ladder.stages[1]
    assert second.fell_back == (16,) and second.forward_only
    assert second.figures[0].added_ms == 1.0 and second.figures[0].compile_s == 0.5
    assert ladder.first_divergence == "aot_eager"
    raw = {"arms": [], "ladder": LADDER}
    assert ladder_section.rows(model) == ladder_section.rows(SessionModel.from_json(raw))
    assert ladder_section.rows(model)[1][:3] == ["aot_eager", "AOTAutograd", "8"]
    assert ladder_section.verdict(model) == ladder_section.verdict(SessionModel.from_json(raw))
    assert "TORCHDYNAMO_REPRO_AFTER=aot" in (ladder_section.verdict(model) or "")


def test_a_session_that_is_not_a_ladder_has_none():
    model = SessionModel.from_json({"arms": []})
    assert model.ladder is None
    assert ladder_section.rows(model) == [] and ladder_section.verdict(model) is None
