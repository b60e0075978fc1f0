"""The verdict sentences and notes are the model's, over its typed records (model/verdict.py,
notes.py): analysis's doors take a SessionModel, an Arm or a Row as well as the dict, and say
the same; a row's reading for the sentence (its group, Holm's word, its status, contention, a
control's twin) is typed on the Row, missing in an old session as None or its default."""

from __future__ import annotations

from typing import Any

import pytest

from tcprof.profiler.analysis.verdict import (
    arm_verdict,
    medians_note,
    session_notes,
    session_verdicts,
    settle_hint,
    verdict_lines,
)
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tests.support.synthetic import synthetic_session

pytestmark = pytest.mark.timeout(60)

WIDE = {0: [[2.0] * 4, [2.6] * 4, [1.5] * 4], 1: [[1.2] * 4, [2.4] * 4, [0.7] * 4]}


def _doc() -> dict[str, Any]:
    doc = synthetic_session(batch_sizes=(8, 16), rounds=WIDE)
    row = doc["arms"][1]["results"][0]
    row.update(contended_blocks=3, unquiet_blocks=5, blocks_measured=12, partial=True)
    row.update(steps_measured=7, steps_planned=12, holds_after_adjustment=False)
    return doc


def test_the_doors_take_the_model_and_say_what_the_dict_says():
    doc = _doc()
    model = SessionModel.from_json(doc)
    assert [(v.arm, v.text, v.tone) for v in session_verdicts(model)] == [
        (v.arm, v.text, v.tone) for v in session_verdicts(SessionModel.read(doc))
    ]
    assert session_notes(model) == session_notes(SessionModel.read(doc)) == list(model.notes)
    assert verdict_lines(model) == verdict_lines(SessionModel.read(doc)) == list(model.verdicts)
    assert model.arms[1].verdict == model.verdicts[0]
    compiled = model.arms[1]
    assert arm_verdict(compiled, False) == arm_verdict(Arm.of(doc["arms"][1], False, None), False)
    row, base = compiled.rows[0], model.arms[0].rows[0]
    raw_row = Row.of("", doc["arms"][1]["results"][0], False)
    assert settle_hint(row) == settle_hint(raw_row)
    assert "(5/12 blocks ran contended)" in settle_hint(row)
    raw_base = Row.of("", doc["arms"][0]["results"][0], False)
    assert medians_note(row, base) == medians_note(raw_row, raw_base)


def test_a_rows_reading_for_the_sentence_is_typed():
    row = SessionModel.from_json(_doc()).arms[1].rows[0]
    assert row.blocks_contended == 5 and row.blocks_measured == 12
    assert row.status_text == "stopped at 7/12" and row.partial
    assert row.interval_verdict in ("faster", "slower", "no_difference")
    assert row.holds is (row.interval_verdict not in ("faster", "slower"))
    assert row.outcome in ("faster", "slower", "noise") and row.control_of is None


def test_an_old_rows_missing_keys_read_as_defaults():
    row = Row.of("inductor", {"batch_size": 8}, baseline=False)
    assert (row.outcome, row.interval_verdict, row.holds) == ("unmeasured", None, True)
    assert (row.status_text, row.blocks_contended, row.blocks_measured) == ("?", 0, None)
    assert row.control_of is None and row.verdict == "not measured"
