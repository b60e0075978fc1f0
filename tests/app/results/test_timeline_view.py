"""The Timeline tab: where the run's time went, one lane per process in the reports' category
colours, and the totals line; an old session without a timeline opens with the tab hidden."""

from __future__ import annotations

from typing import Any

import pytest

from tcprof.app.results.results_view import ResultsView
from tcprof.app.results.timeline_view import EMPTY, TimelineView
from tcprof.profiler.model.session import SessionModel

pytestmark = pytest.mark.timeout(30)


def _session() -> dict[str, Any]:
    def lane(name: str, rnd: int | str, spans: list[tuple[float, float, str]]) -> dict[str, Any]:
        return {
            "arm": 0,
            "name": name,
            "round": rnd,
            "spans": [{"start": a, "end": b, "what": "x", "category": c} for a, b, c in spans],
        }

    timeline = {
        "wall_s": 10.0,
        "totals": {"measurement": 4.0, "compiling": 3.0, "start-up": 2.0, "other": 1.0},
        "lanes": [
            lane("eager", 0, [(0.0, 2.0, "start-up"), (5.0, 7.0, "measurement")]),
            lane("inductor", 0, [(0.0, 2.0, "start-up"), (2.0, 5.0, "compiling")]),
            lane("inductor", "accuracy", [(7.0, 9.0, "accuracy pass")]),
        ],
    }
    return {"arms": [], "timeline": timeline}


def test_the_timeline_tab_draws_each_process_and_says_the_totals(qtbot):
    view = TimelineView()
    qtbot.addWidget(view)
    view.resize(530, 200)
    assert view.show_session(SessionModel.read(_session()))
    assert view.totals.text() == "10 s: 4 s measuring, 3 s compiling, 2 s start-up, 1 s other"
    rects = view.chart.span_rects()
    assert [c for _, c in rects] == [
        "start-up",
        "measurement",
        "start-up",
        "compiling",
        "accuracy pass",
    ]
    lanes_y = sorted({r.y() for r, _ in rects})
    assert len(lanes_y) == 3  # one lane per process
    compile_rect = rects[3][0]
    assert compile_rect.width() == pytest.approx(rects[0][0].width() * 1.5, rel=0.01)
    view.chart.grab()  # paints without error


def test_a_session_without_a_timeline_hides_the_tab(qtbot):
    results = ResultsView()
    qtbot.addWidget(results)
    results.show_session(SessionModel.from_json(_session()))
    assert results.isTabVisible(results.indexOf(results.timeline))
    results.show_session(SessionModel.from_json({"arms": []}))  # an old session: no timeline
    assert not results.isTabVisible(results.indexOf(results.timeline))
    assert results.timeline.totals.text() == EMPTY
