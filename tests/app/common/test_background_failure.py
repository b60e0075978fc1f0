"""A background call's failure is read in one place (common/background.py `failure_of`): the
shape `BackgroundCalls.submit` gives an exception, and the error a call returns itself."""

from __future__ import annotations

import pytest

from tcprof.app.common.background import BackgroundCalls, Failure, failure_of

pytestmark = pytest.mark.timeout(30)


def _raises() -> None:
    raise ValueError("no such series")


def test_an_exception_in_a_background_call_reads_as_a_failure(qtbot) -> None:
    calls = BackgroundCalls()
    got: list[object] = []
    calls.submit(_raises, got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=10_000)
    calls.shutdown()
    failure = failure_of(got[0])
    assert failure is not None and failure.kind == "internal"
    assert failure.message == "ValueError: no such series" and "Traceback" in failure.traceback
    assert failure.as_problem("export")["kind"] == "export"


def test_an_answer_is_no_failure_and_a_problem_without_traceback_has_none() -> None:
    assert failure_of({"paths": []}) is None and failure_of(["a"]) is None
    assert failure_of({"error": "text"}) is None
    assert Failure("log", "bad spec").as_problem("log") == {"kind": "log", "message": "bad spec"}
