"""The run controller's live summary, read as the typed session model."""

from __future__ import annotations

import pytest

from tcprof.app.run.run_controller import RunController
from tcprof.profiler.model.session import SessionModel

pytestmark = pytest.mark.timeout(30)


def test_the_live_summary_is_the_typed_model(qtbot):
    controller = RunController()
    assert isinstance(controller.session(), SessionModel)
    assert controller.session().arms == ()  # before the first batch size ends
    controller.summary = {"status": "running", "arms": [{"name": "eager", "index": 0, "pid": 7}]}
    session = controller.session()
    assert [(a.name, a.pid) for a in session.arms] == [("eager", 7)]
    assert session.status == "running"
