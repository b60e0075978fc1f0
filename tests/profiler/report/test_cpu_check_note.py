"""The compile section says the cold compile leaves out inductor's once-per-machine CPU check,
with the check's cost when first run on this machine (report.md, report.html, the window's
Compile time tab share the sentence); sessions without the check say nothing of it."""

from __future__ import annotations

import copy

import pytest

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections import compile_list
from tests.support.synthetic import eval_first_session

pytestmark = pytest.mark.timeout(30)
BUILT = {"seconds": 9.8, "built": True, "first_s": 9.8, "isas": ["avx2"], "seeded": 2}
DONE = {**BUILT, "seconds": 0.41, "built": False}


def _with(check: dict) -> dict:
    session = copy.deepcopy(eval_first_session())
    session["arms"][1]["model"]["cpu_check"] = check
    return session


def _arm(session: dict):
    """The compiled arm and its first row, as the model reads them."""
    arm = SessionModel.from_json(session).arms[1]
    return arm.rows[0], arm


def test_a_check_run_in_this_session_is_named_and_left_out():
    session = _with(BUILT)
    assert session_problem(session) is None
    row = session["arms"][1]["results"][0]
    cold = row["compile_cold_s"]
    text = compile_list.cpu_check_text(*_arm(session))
    assert text == (
        f"Cold compile {cold:.2f} s (inductor's once-per-machine CPU check, 9.80 s, not "
        "included: paid once per machine or fresh cache; it ran first on this machine in this "
        "run, before the cold compile)."
    )
    assert text in render_markdown(SessionModel.read(session))
    assert "once-per-machine CPU check, 9.80 s, not included" in render_html(
        SessionModel.read(session)
    )


def test_a_check_already_done_says_so_and_what_this_run_paid():
    text = compile_list.cpu_check_text(*_arm(_with(DONE)))
    assert text is not None and "CPU check, 9.80 s, not included" in text
    assert "already done on this machine" in text and "0.41 s" in text


def test_a_failed_check_says_the_compile_holds_it():
    text = compile_list.cpu_check_text(*_arm(_with({"error": "RuntimeError: no compiler"})))
    assert text == (
        "inductor's once-per-machine CPU check could not run before compiling "
        "(RuntimeError: no compiler): the compiles hold it."
    )


def test_sessions_without_the_check_say_nothing_of_it():
    session = eval_first_session()
    assert "CPU check" not in render_markdown(SessionModel.read(session))
    assert compile_list.cpu_check_text(*_arm(session)) is None


def test_an_arm_without_a_row_still_says_its_check():
    """The window's Compile time tab with no batch size to select: the arm's CPU check alone."""
    _row, arm = _arm(_with(BUILT))
    (line,) = compile_list.notes(None, arm)
    assert line.startswith("The compile figures (inductor's once-per-machine CPU check, 9.80 s")
    assert compile_list.notes(None, None) == []
