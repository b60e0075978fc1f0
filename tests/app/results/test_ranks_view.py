"""The Ranks tab: the straggler view and the ranks whose compiles diverged, from a session
dict (no worker)."""

from __future__ import annotations

from tcprof.app.results.ranks_view import NONE_TEXT, RanksView
from tcprof.app.results.results_view import ResultsView
from tcprof.profiler.model.session import SessionModel


def _session(recompiles_of_rank_1: int) -> dict:
    def rank(r: int, ms: float, recompiles: int) -> dict:
        reasons = ["tensor 'x' size mismatch at index 0"] if recompiles else []
        return {
            "rank": r,
            "node": r,
            "host": f"node{r}",
            "median_ms": ms,
            "graphs": 1,
            "recompiles": recompiles,
            "recompile_reasons": reasons,
            "graph_breaks": 0,
            "guards": 12,
            "ddp_splits": 1,
            "compile_s": 2.0,
        }

    ranks = [rank(0, 10.0, 0), rank(1, 12.0, recompiles_of_rank_1)]
    row = {"batch_size": 16, "status": "ok", "global_batch_size": 32, "ranks": ranks}
    return {"arms": [{"name": "inductor", "backend": "inductor", "results": [row]}]}


def test_the_ranks_tab_names_the_slowest_rank_and_a_rank_that_recompiled_alone(qtbot):
    view = RanksView()
    qtbot.addWidget(view)
    view.show_session(SessionModel.from_json(_session(1)))
    assert view.has_ranks()
    assert view.table.item(0, 4).text() == "rank 1 (node 1, node1)"
    assert "1 DDP bucket split" in view.table.item(0, 5).text()
    assert view.notes.text().startswith(
        "inductor bs 16: rank 1 recompiled (tensor 'x' size mismatch at index 0) while the "
        "others did not: the classic cause of a hang or slowdown in distributed compile"
    )
    view.show_session(SessionModel.from_json(_session(0)))
    assert view.notes.isHidden()
    view.show_session(SessionModel.from_json({}))
    assert view.explain.text() == NONE_TEXT and not view.has_ranks()


def test_the_results_hold_a_ranks_tab(qtbot):
    results = ResultsView()
    qtbot.addWidget(results)
    results.show_session(SessionModel.from_json(_session(1)))
    assert results.tabText(results.indexOf(results.ranks)) == "Ranks"
    assert results.ranks.has_ranks()
