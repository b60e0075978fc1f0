"""A headline that never oversells: a speedup whose interval is too wide to act on is shown
nowhere as a figure to quote (the terminal, report.html's card and table, report.md, the
Python API, `tcprof compare`, the trackers), and a single round's bootstrap of steps is shown
nowhere as a 95% interval. The window's widgets are checked in tests/app/results/."""

from __future__ import annotations

import re

import pytest

import tcprof
from tcprof.profiler.analysis import stats
from tcprof.profiler.analysis.verdict import session_notes, verdict_lines
from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.compare import diff_sessions, render_comparison
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections.summary import summary as html_summary
from tcprof.profiler.trackers.content import session_log
from tests.support.synthetic import synthetic_session

# Three rounds whose ratios disagree (5, 1 and 1.25): a centre of 1.84 in [0.29-11.6], while
# the medians of medians (10 / 8 ms) read 1.25
WIDE = {0: [[10.0] * 4] * 3, 1: [[2.0] * 4, [10.0] * 4, [8.0] * 4]}
# Three rounds that agree it is faster (ratios 3, 4 and 6) but not by how much: [1.75-9.88]
FASTER_WIDE = {0: [[12.0] * 4] * 3, 1: [[4.0] * 4, [3.0] * 4, [2.0] * 4]}
# One round: the steps' bootstrap is all there is
ONE_ROUND = {0: [[1.0, 1.1, 1.05, 0.95]], 1: [[0.61, 0.67, 0.73, 0.79]]}


def _html_summary(session: dict) -> str:
    return html_summary(SessionModel.read(session), lambda v: str(v))


def _views(session: dict, tmp_path) -> dict[str, str]:
    """Every text view of a session, as a user or a tool reads it."""
    api = tcprof.Session.from_dict(session)
    speedup = api.speedup("aot_eager", 8)
    log = session_log(SessionModel.from_json(session), tmp_path)
    later = {**session, "started_at": session["started_at"] + 100}
    return {
        "terminal": render_summary(SessionModel.read(session)),
        "report.html summary": _html_summary(session),
        "report.md": render_markdown(SessionModel.read(session)),
        "api": f"{speedup} {api!r} {api.row('aot_eager', 8).verdict}",
        "compare": render_comparison(
            diff_sessions(SessionModel.read(session), SessionModel.read(later)).rows
        ),
        "trackers": f"{log.table}\n{log.verdict}\n{[a.verdict for a in log.arms]}",
    }


@pytest.mark.parametrize("rounds", [WIDE, FASTER_WIDE], ids=["within-noise", "faster"])
def test_a_wide_interval_is_no_headline_in_any_view(rounds, tmp_path):
    session = synthetic_session(rounds=rounds)
    row = session["arms"][1]["results"][0]
    low, high = row["speedup_ci"]
    assert high / low > stats.SETTLED_RATIO, "the fixture is wide"
    figure = f"{row['speedup']:.2f}"
    for view, text in _views(session, tmp_path).items():
        assert figure not in text, f"{view} quotes the unsettled speedup {figure}"
        assert "not settled" in text, view
    card = re.search(
        r'<div class="big[^"]*">([^<]*)</div>', render_html(SessionModel.read(session))
    )
    assert card is not None and card.group(1) == "not settled", "no large number on the card"
    api = tcprof.Session.from_dict(session).speedup("aot_eager", 8)
    assert api is not None and api.settled is False and str(api).startswith("not settled [")
    headline = session_log(SessionModel.from_json(session), tmp_path).arms[1].headline
    assert "speedup" not in headline and headline["speedup_ci_low"] == {8: pytest.approx(low)}
    notes = " ".join(session_notes(SessionModel.read(session)))
    assert "more rounds (--replicates) or steps would settle it, or a quieter machine" in notes


def test_a_verdict_outside_the_wide_interval_is_still_said_without_its_figure():
    session = synthetic_session(rounds=FASTER_WIDE)
    (line,) = verdict_lines(SessionModel.read(session))
    assert line.startswith("aot_eager is faster at bs 8 [1.75–9.88] (not settled)")


def test_medians_that_disagree_with_the_speedup_are_explained():
    notes = " ".join(session_notes(SessionModel.read(synthetic_session(rounds=WIDE))))
    assert "the medians (10.00 / 8.00 ms, a ratio of 1.25×) differ from the speedup" in notes
    assert "rounds that disagree" in notes
    card = _html_summary(synthetic_session(rounds=WIDE))
    assert "a ratio of 1.25" in card


def test_the_contended_blocks_are_named_in_what_would_settle_it():
    session = synthetic_session(rounds=WIDE)
    session["arms"][1]["results"][0].update(contended_blocks=12, blocks_measured=30)
    assert "(12/30 blocks ran contended)" in " ".join(session_notes(SessionModel.read(session)))


def test_a_settled_interval_is_the_headline():
    tight = {0: [[10.0] * 4] * 3, 1: [[8.0] * 4, [8.1] * 4, [7.9] * 4]}
    session = synthetic_session(rounds=tight)
    row = session["arms"][1]["results"][0]
    assert stats.settled(*row["speedup_ci"])
    figure = f"{row['speedup']:.2f}"
    assert f"{figure}× [" in render_summary(SessionModel.read(session))
    assert verdict_lines(SessionModel.read(session))[0].startswith(
        f"aot_eager is {figure}× faster at bs 8 ["
    )
    card = re.search(
        r'<div class="big[^"]*">([^<]*)</div>', render_html(SessionModel.read(session))
    )
    assert card is not None and card.group(1) == f"{figure}×"
    assert tcprof.Session.from_dict(session).speedup("aot_eager", 8).settled


def test_one_round_shows_no_95_percent_interval_anywhere(tmp_path):
    session = synthetic_session(rounds=ONE_ROUND)
    row = session["arms"][1]["results"][0]
    assert row["speedup_ci"] is None and row["verdict"] == "no_interval"
    assert row["break_even_ci"] is None and row["break_even_cold_ci"] is None
    low, high = row["speedup_ci_one_process"]
    bounds = [f"{low:.2f}–{high:.2f}", f"{low:.2f}-{high:.2f}", f"{low:.2f}, {high:.2f}"]
    views = _views(session, tmp_path)
    views["report.html"] = render_html(SessionModel.read(session))
    for view, text in views.items():
        for written in bounds:
            assert written not in text, f"{view} shows one round's bootstrap as an interval"
        claim = re.search(
            r"is (\S+ )?(faster|slower)|(faster|slower) at bs|\| (faster|slower) ", text
        )
        assert claim is None, f"{view} claims {claim and claim.group(0)!r} without an interval"
    speedup = tcprof.Session.from_dict(session).speedup("aot_eager", 8)
    assert speedup is not None and speedup.interval is None
    assert speedup.one_process_interval is not None, "kept under its own name"
    assert tcprof.Session.from_dict(session).verdict("aot_eager", 8) == "no interval"
    assert "no interval yet" in verdict_lines(SessionModel.read(session))[0]
