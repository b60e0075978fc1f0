"""Every view of a session shows the intervals its verdict uses and states the family-wise
level once: a speedup that holds at 95% but not over the run's three comparisons reads as no
difference, with an interval that contains 1, no '(not after Holm)' and no payback, in the
terminal summary, report.md, report.html, the trackers and the Python API."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcprof.profiler.api.session import Session
from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.trackers.content import session_log
from tests.support.edge_family import edge_session

pytestmark = pytest.mark.timeout(60)

LEVEL = "3 comparisons, simultaneous 95% intervals (Bonferroni: each at 98.3%)"


@pytest.fixture(scope="module")
def session():
    return edge_session()


def test_the_edge_case_is_noise_with_the_interval_that_says_so(session):
    row = session["arms"][1]["results"][0]
    assert row["speedup_ci"][0] > 1.0, "the plain 95% interval excludes 1"
    low, high = row["speedup_ci_simultaneous"]
    assert low < 1.0 < high and row["verdict"] == "no_difference"
    assert row["break_even_cold_steps"] is None and row["break_even_cold_ci"] is None
    clear = session["arms"][2]["results"][0]
    assert clear["verdict"] == "faster" and clear["break_even_cold_steps"] is not None


def _tracker_text(session, folder: Path) -> str:
    log = session_log(SessionModel.from_json(session), folder)
    low = log.arms[1].headline["speedup_ci_low"][8]
    assert low == session["arms"][1]["results"][0]["speedup_ci_simultaneous"][0]
    return f"{log.table}\n{log.verdict}"


def _interval(bounds: list[float]) -> str:
    return f"{bounds[0]:.2f}"


@pytest.mark.parametrize("view", ["terminal", "markdown", "html", "tracker"])
def test_every_view_shows_the_simultaneous_interval_and_the_level(session, view, tmp_path):
    text = {
        "terminal": lambda: render_summary(SessionModel.read({**session, "environment": {}})),
        "markdown": lambda: render_markdown(SessionModel.read(session)),
        "html": lambda: render_html(SessionModel.read(session)),
        "tracker": lambda: _tracker_text(session, Path(tmp_path)),
    }[view]()
    row = session["arms"][1]["results"][0]
    assert _interval(row["speedup_ci_simultaneous"]) in text
    assert _interval(row["speedup_ci"]) not in text, "the unadjusted interval is not shown"
    assert "not after Holm" not in text
    assert LEVEL in text, "the family-wise level is stated beside the verdict"
    assert text.count(LEVEL) == 1
    assert "inductor shows no difference beyond noise" in text
    assert "inductor is" not in text


def test_the_python_api_gives_the_same_interval_and_its_level(session):
    api = Session.from_dict(session)
    row = session["arms"][1]["results"][0]
    speedup = next(r for r in api.arms[1].rows).speedup
    assert speedup is not None and speedup.interval is not None
    assert [speedup.interval.low, speedup.interval.high] == row["speedup_ci_simultaneous"]
    assert speedup.level == pytest.approx(1 - 0.05 / 3)
    assert LEVEL in api.notes[0]


def test_an_old_session_keeps_its_stored_interval_with_a_note(session):
    """Saved before simultaneous intervals: read with its 95% interval and Holm's word."""
    old = {**session, "comparisons": {**session["comparisons"], "adjustment": "holm"}}
    old["arms"] = [dict(a) for a in session["arms"]]
    rows = []
    for r in session["arms"][1]["results"]:
        r = {k: v for k, v in r.items() if k not in ("speedup_ci_simultaneous", "interval_level")}
        rows.append({**r, "verdict": "faster", "holds_after_adjustment": False})
    old["arms"][1] = {**old["arms"][1], "results": rows}
    old["comparisons"]["level"] = 0.95
    text = render_summary(SessionModel.read({**old, "environment": {}}))
    assert _interval(rows[0]["speedup_ci"]) in text
    assert "(saved before simultaneous intervals)" in text
    assert "does not pay back" in text and "pays back its" not in text.split("aot_eager")[0]
