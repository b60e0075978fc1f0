"""The Compile time tab lists each compile of the batch size selected: when it ran (before
training, in a step, in an evaluation), the call that triggered it with its grad mode and
shapes, its time and share, a total equal to the compile cost, and what the first step paid
beyond compiling as a part of its own; its explanation says where the compiles ran."""

from __future__ import annotations

import pytest

from tcprof.profiler.model.session import SessionModel
from tests.support.synthetic import EVAL_FIRST_COMPILES, eval_first_session, synthetic_session


def _cells(table):
    return [
        [table.item(r, c).text() for c in range(table.columnCount())]
        for r in range(table.rowCount())
    ]


@pytest.fixture
def view(qtbot):
    from tcprof.app.results.insight_view import InsightView

    view = InsightView()
    qtbot.addWidget(view)
    return view


def test_each_compile_is_listed_with_when_what_and_a_total_equal_to_the_cost(view):
    session = eval_first_session()
    row = session["arms"][1]["results"][0]
    view.show_session(SessionModel.from_json(session))
    view.details.setCurrentWidget(view.times_page)
    cells = _cells(view.compiles)
    assert [r[0] for r in cells] == [
        "before training",
        "in the first step",
        "in an evaluation after 4 steps",
        "total: the compile cost",
        "first step beyond compiling",
    ]
    assert cells[0][1] == "eval_first.py:30 under no_grad, shapes (16, 8)"
    assert cells[1][1] == "eval_first.py:40 with gradients, shapes (16, 8)"
    assert cells[2][1] == "eval_first.py:30 under no_grad, shapes (5, 8)"
    assert [r[3] for r in cells[:3]] == ["2.00", "1.00", "1.00"]  # the backward is its compile's
    assert [r[4] for r in cells[:4]] == ["50%", "25%", "25%", "100%"]
    # the parts add up to the cost, known by construction: 2.0 + (0.8 + 0.2) + 1.0
    truth = sum((c.get("seconds") or 0) + (c.get("backward_s") or 0) for c in EVAL_FIRST_COMPILES)
    assert row["compile_cold_s"] == pytest.approx(truth)
    assert float(cells[3][3]) == pytest.approx(truth) == sum(float(r[3]) for r in cells[:3])
    # 1250 ms first step against eager's 50: 1.20 s excess, 1.00 s of it compiling
    assert cells[4][3] == "0.20"
    assert "size mismatch" in view.compiles.item(2, 0).toolTip()
    case = view.compile_case.text()
    assert (
        "1 compile ran before training (an evaluation at eval_first.py:30), counted in the cost "
        "and left out of start-up" in case
    )
    assert "1 compile ran in an evaluation between steps (at eval_first.py:30)" in case
    # a CPU run without CUDA graphs: the part beyond compiling recorded none
    assert "paid 0.20 s (lazy initialisation):" in case and "CUDA graph" not in case
    assert cells[4][1] == "lazy initialisation"
    assert "CUDA graph" not in view.compiles.item(4, 0).toolTip()
    assert (
        "torch's compile events in the first step 1.00 s; the first step's excess over a steady "
        "step 1.20 s; residual 0.20 s" in case
    )
    assert "runs inside the compiled arm's timer" not in case + view.parts.text()
    assert view.compiles.isVisibleTo(view) and view.compile_case.isVisibleTo(view)


def test_a_session_saved_before_compiles_were_listed_shows_none(view):
    session = synthetic_session()
    for arm in session["arms"]:
        for row in arm["results"]:
            row.pop("compiles_list", None), row.pop("compile_check", None)
    view.show_session(SessionModel.from_json(session))
    view.details.setCurrentWidget(view.times_page)
    assert view.compiles.rowCount() == 0 and not view.compiles.isVisibleTo(view)
    assert view.compile_case.text() == "" and not view.compile_case.isVisibleTo(view)
    assert view.times.rowCount() == 1
