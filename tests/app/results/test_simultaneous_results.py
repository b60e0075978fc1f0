"""The window shows the intervals its verdict uses: a speedup that holds at 95% but not over
the run's three comparisons is coloured as noise, its cell shows the simultaneous interval
(which contains 1), its break-even is 'within noise', and the banner states the family-wise
level once."""

from __future__ import annotations

import pytest

from tcprof.app.common.theme import good_colour
from tcprof.app.results.results_view import ResultsView
from tcprof.profiler.analysis.verdict import bound_text
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.columns import COLUMN_HELP, SPEEDUP
from tests.support.edge_family import edge_session

pytestmark = pytest.mark.timeout(60)


def test_the_window_agrees_with_the_simultaneous_interval(qtbot):
    session = edge_session()
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_session(SessionModel.from_json(session))
    row = session["arms"][1]["results"][0]
    low, high = row["speedup_ci_simultaneous"]
    lines = view.verdict.lines()
    assert lines[0].startswith("inductor shows no difference beyond noise")
    assert lines[1].startswith("aot_eager is 1.50× faster")
    notes = view.verdict.notes
    assert sum("simultaneous 95% intervals (Bonferroni" in n for n in notes) == 1
    header, rows = view.header(), view.rows()
    # the header states the level of the intervals below it: each of three at 1 - 5%/3
    speed, verdict = header.index("speedup [98.3% CI]"), header.index("verdict")
    assert "speedup [95% CI]" not in header
    tip = view.summary.horizontalHeaderItem(speed).toolTip()
    assert COLUMN_HELP[SPEEDUP][:60] in tip, "the column keeps its help whatever its level"
    brk = header.index("break-even cold/warm")
    inductor = next(i for i, r in enumerate(rows) if r[0] == "inductor")
    aot = next(i for i, r in enumerate(rows) if r[0] == "aot_eager")
    assert f"{bound_text(low)}-{bound_text(high)}" in rows[inductor][speed]
    assert rows[inductor][verdict] == "within noise"
    assert rows[inductor][brk] == "within noise"
    colour = view.summary.item(inductor, speed).foreground().color().name()
    assert colour != good_colour(), "noise is not coloured as a win"
    assert view.summary.item(aot, speed).foreground().color().name() == good_colour()
