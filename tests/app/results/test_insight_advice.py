"""Compile insight shows an arm's recompile advice: cause, fix, and what tcprof can verify."""

from __future__ import annotations

from tcprof.app.common.table_text import table_text
from tcprof.app.results.insight_view import InsightView
from tcprof.profiler.analysis.advice import recompile_advice
from tcprof.profiler.model.arm import Recompile
from tcprof.profiler.model.session import SessionModel

REASONS = [
    "0/0: tensor 'args[0]' size mismatch at index 0. expected 8, actual 16",
    "0/1: tensor 'args[0]' size mismatch at index 0. expected 16, actual 32",
]


def test_the_advice_tab_lists_causes_and_fixes(qtbot):
    recompiles = [{"reason": r, "batch_size": 16, "file": "m.py", "line": 3} for r in REASONS]
    arm = {
        "name": "inductor",
        "backend": "inductor",
        "results": [],
        "recompiles": recompiles,
        "advice": recompile_advice([Recompile.of(r) for r in recompiles], [8, 16, 32]),
    }
    view = InsightView()
    qtbot.addWidget(view)
    view.show_session(
        SessionModel.from_json(
            {"arms": [{"name": "eager", "backend": "eager", "results": []}, arm]}
        )
    )
    assert view.details.tabText(0) == "Advice (1)"
    (row,) = table_text(view.advice)
    assert "changed size (8 → 16 → 32)" in row[0]
    assert "mark_dynamic(x, 0)" in row[1] and row[2] == "mark_dynamic=0"
    view.show_session(SessionModel.from_json({"arms": [{**arm, "advice": []}]}))
    assert view.details.tabText(0) == "Advice" and view.advice.rowCount() == 0
