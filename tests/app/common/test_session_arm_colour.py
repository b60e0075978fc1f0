"""A session's arm is drawn in the colour its plots and report.html give it, read from the
typed session model (common/theme.py `session_arm_colour`)."""

from __future__ import annotations

import pytest

from tcprof.app.common.theme import arm_qcolours, session_arm_colour
from tcprof.profiler.model.session import SessionModel

pytestmark = pytest.mark.timeout(10)


def test_each_arm_takes_its_colour_from_the_typed_model() -> None:
    arms = [
        {"name": "inductor", "backend": "inductor"},
        {"name": "eager", "backend": ""},  # no backend: its name says it is eager
    ]
    model = SessionModel.from_json({"status": "completed", "arms": arms})
    expected = arm_qcolours([False, True])
    assert [session_arm_colour(model, i) for i in (0, 1)] == expected
    assert session_arm_colour(model, 5).isValid(), "an arm beyond the session's: by its index"
