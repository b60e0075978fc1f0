"""The window never oversells either: a speedup whose interval is too wide to act on reads
"not settled" in the Summary (what would settle it on hover) and in the verdict banner, and a
single round shows no interval (the engine's views: tests/profiler/report/)."""

from __future__ import annotations

import tcprof
from tcprof.app.results.results_view import ResultsView
from tcprof.profiler.model.session import SessionModel
from tests.profiler.report.test_headline_settled import FASTER_WIDE, ONE_ROUND, WIDE
from tests.support.synthetic import synthetic_session


def _speedup_cell(view: ResultsView):
    header = view.header()
    return view.summary.item(1, header.index("speedup [95% CI]"))


def test_the_window_shows_an_unsettled_speedup_as_not_settled(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    for rounds in (WIDE, FASTER_WIDE):
        session = synthetic_session(rounds=rounds)
        figure = f"{session['arms'][1]['results'][0]['speedup']:.2f}"
        view.show_session(SessionModel.from_json(session))
        cell = _speedup_cell(view)
        assert cell.text().startswith("not settled ["), cell.text()
        assert "would settle it" in cell.toolTip()
        banner = view.verdict.label.text()
        assert figure not in banner and "not settled" in banner
        assert all(figure not in line for line in view.verdict.lines())


def test_the_window_and_the_api_agree_on_one_round(qtbot):
    """The API returned [0.01–7.71] where the window said "one round: no interval yet"."""
    session = synthetic_session(rounds=ONE_ROUND)
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_session(SessionModel.from_json(session))
    assert _speedup_cell(view).text() == "not settled (one round)"
    assert "no interval yet" in view.verdict.lines()[0]
    assert tcprof.Session.from_dict(session).speedup("aot_eager", 8).interval is None
