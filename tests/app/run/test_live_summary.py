"""The run controller's live summary, read as the typed session model."""

from __future__ import annotations

import pytest

from tcprof.app.run.run_controller import RunController
from tcprof.profiler.model.context import Environment
from tcprof.profiler.model.session import SessionModel

pytestmark = pytest.mark.timeout(30)


def test_the_live_summary_is_the_typed_model(qtbot):
    controller = RunController()
    assert isinstance(controller.session(), SessionModel)
    assert controller.session().arms == ()  # before the first batch size ends
    summary = {"status": "running", "arms": [{"name": "eager", "index": 0, "pid": 7}]}
    controller.summary = SessionModel.from_json(summary)
    session = controller.session()
    assert [(a.name, a.pid) for a in session.arms] == [("eager", 7)]
    assert session.status == "running"


def test_the_first_hello_is_kept_as_the_typed_environment(qtbot):
    """The controller keeps the worker's hello as `Environment`, what the tab reads."""
    controller = RunController()

    class Thread:  # what _drain asks of the profiler thread
        def take_events(self):
            return [
                {"type": "hello", "arm": 0, "t": 1.0, "torch": "2.5.1", "devices": ["cpu"]},
                {"type": "hello", "arm": 1, "t": 1.1, "torch": "other"},
            ]

    controller.thread = Thread()
    controller._drain()
    controller.thread = None
    assert isinstance(controller.environment, Environment)
    assert (controller.environment.torch, controller.environment.devices) == ("2.5.1", ("cpu",))


def test_each_summary_is_read_into_the_model_once_as_it_arrives(qtbot):
    """The live summary is read when its event is drained, not again each time it is asked
    for (the results refresh after every batch size, and once more at the end)."""
    controller = RunController()
    summary = {"status": "running", "arms": [{"name": "eager", "index": 0, "pid": 7}]}

    class Thread:  # what _drain asks of the profiler thread
        def take_events(self):
            return [{"type": "summary", "session": summary}]

    controller.thread = Thread()
    controller._drain()
    controller.thread = None
    assert isinstance(controller.summary, SessionModel)
    first, again = controller.session(), controller.session()
    assert first.arms is again.arms, "one reading, shared"
    assert [(a.name, a.pid) for a in first.arms] == [("eager", 7)]
