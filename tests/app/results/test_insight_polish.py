"""Compile insight follows the matrix, says when there is nothing, explains resume functions,
shows compile-time parts that add up, the ladder of a Diagnose run, and offers Apply and re-run."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tcprof.app.common.table_text import table_text
from tcprof.app.results.insight_tables import PART_COLUMNS, TIMES_HEADER
from tcprof.app.results.insight_view import NO_ADVICE, NO_BREAKS, NO_RECOMPILES, InsightView
from tcprof.profiler.model.session import SessionModel

RESUME = "torch_dynamo_resume_in_forward_at_16"


def _arm(name, recompiles=(), advice=(), breaks=()):
    results = [
        {"batch_size": 8, "status": "ok", "compile_status": "compiled", "first_step_ms": 13000.0,
         "compile_cold_s": 12.46,
         "compile_breakdown": {"dynamo_s": 8.42, "backend_s": 6.0, "inductor_s": 4.5, "code_gen_s": 2.0}},
        {"batch_size": 16, "status": "ok", "compile_status": "recompiled", "compile_cold_s": 1.0},
    ]  # fmt: skip
    return {"name": name, "backend": "inductor", "results": results,
            "recompiles": list(recompiles), "advice": list(advice), "graph_breaks": list(breaks)}  # fmt: skip


def _session():
    eager = {"name": "eager", "backend": "eager", "results": [
        {"batch_size": 8, "status": "ok", "compile_status": "eager"},
        {"batch_size": 16, "status": "ok", "compile_status": "eager"}]}  # fmt: skip
    recompile = {"batch_size": 16, "step": 0, "frame": RESUME, "seconds": 0.3, "reason": "size"}
    advice = {"message": "x changed size", "fix": "mark_dynamic(x, 0)", "apply": "mark_dynamic=0"}
    return {
        "config": {"batch_sizes": [8, 16]},
        "arms": [eager, _arm("inductor"), _arm("inductor(dynamic=False)", [recompile], [advice])],
    }


@pytest.fixture
def view(qtbot):
    widget = InsightView()
    qtbot.addWidget(widget)
    widget.show_session(SessionModel.from_json(_session()))
    return widget


def test_clicking_a_matrix_cell_selects_its_arm_and_batch_size(view, qtbot):
    assert view.arm_picker.currentText() == "inductor"
    rect = view.matrix.visualRect(view.matrix.model().index(2, 2))
    qtbot.mouseClick(view.matrix.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert view.arm_picker.currentText() == "inductor(dynamic=False)"
    assert [i.row() for i in view.times.selectionModel().selectedRows()] == [1], "bs 16's row"
    assert [i.row() for i in view.recompiles.selectionModel().selectedRows()] == [0]
    view.matrix.cellClicked.emit(0, 1)  # eager is not compiled: the picker stays
    assert view.arm_picker.currentText() == "inductor(dynamic=False)"
    assert "eager is not compiled" in view.summary.text()


def test_empty_tables_say_there_is_nothing(view):
    view.arm_picker.setCurrentText("inductor")
    assert view.breaks_page.showing_note() and view.breaks_page.note.text() == NO_BREAKS
    assert view.recompiles_page.showing_note() and view.recompiles_page.note.text() == NO_RECOMPILES
    assert view.advice_page.showing_note() and view.advice_page.note.text() == NO_ADVICE
    assert not view.times_page.showing_note()
    view.arm_picker.setCurrentText("inductor(dynamic=False)")
    assert not view.recompiles_page.showing_note() and not view.advice_page.showing_note()
    view.show_session(SessionModel.from_json({"arms": []}))
    assert view.breaks_page.note.text() == "No session yet."


def test_resume_functions_are_explained(view):
    view.arm_picker.setCurrentText("inductor(dynamic=False)")
    frame = view.recompiles.item(0, 2)
    assert frame.text() == "forward after line 16"
    assert "the rest of `forward` after the graph break at line 16" in frame.toolTip()
    assert f"{RESUME} (the rest of `forward`" in view.summary.text()


def test_the_compile_time_parts_add_up_to_the_cold_compile(view):
    row = dict(zip(TIMES_HEADER, table_text(view.times)[0], strict=True))
    parts = [float(row[c]) for c in PART_COLUMNS if row[c] != "-"]
    assert row["backward s"] == "-", "no lazy backward compile recorded: not a zero"
    assert row["cold s"] == "12.46" and sum(parts) == pytest.approx(12.46, abs=0.011)
    assert row["other s"] == "4.04"
    other = view.times.item(0, TIMES_HEADER.index("other s")).toolTip()
    assert "guard building" in other
    assert view.parts.text().startswith(
        "bs 8: compile cost 12.46 s (torch's compile timer 8.42 s of it) = TorchDynamo tracing 2.42 + "
        "AOTAutograd and backend 1.50 + "
        "Inductor lowering 2.50 + Inductor code generation 2.00 + other 4.04 s"
    )
    assert "guard building" in view.parts.toolTip()
    view.times.selectRow(1)
    assert table_text(view.times)[1][TIMES_HEADER.index("other s")] == "-", "no timers, no parts"
    assert "no split of the compile cost: torch recorded no compile timer" in view.parts.text()


def test_apply_and_rerun_shows_only_for_advice_tcprof_can_apply(view, qtbot):
    view.arm_picker.setCurrentText("inductor")
    assert view.apply_advice.isHidden()
    view.arm_picker.setCurrentText("inductor(dynamic=False)")
    assert not view.apply_advice.isHidden()
    with qtbot.waitSignal(view.applyAdviceRequested, timeout=1_000):
        view.apply_advice.click()


def test_the_ladder_tab_shows_a_diagnose_run(view):
    assert view.ladder.table.isHidden() and "Diagnose" in view.ladder.verdict.text()
    session = _session()
    session["ladder"] = {
        "stages": [
            {"stage": "eager", "what": "eager PyTorch", "accuracy": "baseline",
             "per_batch_size": [{"batch_size": 8, "median_ms": 2.0}]},
            {"stage": "aot_eager", "what": "+ AOTAutograd", "accuracy": "fail",
             "per_batch_size": [{"batch_size": 8, "median_ms": 2.5, "added_ms": 0.5}]},
        ],
        "first_divergence": "aot_eager",
        "minifier": "TORCHDYNAMO_REPRO_AFTER=dynamo python reproduce.py",
    }  # fmt: skip
    view.show_session(SessionModel.from_json(session))
    rows = table_text(view.ladder.table)
    assert [r[0] for r in rows] == ["eager", "aot_eager"] and rows[1][4] == "+0.500"
    assert "first stage to diverge from eager is aot_eager" in view.ladder.verdict.text()
    view.show_ladder()
    assert view.details.currentWidget() is view.ladder


def test_an_applied_advice_reads_as_before_and_after(view):
    session = _session()
    fixed = _arm("inductor(dynamic=False) + mark_dynamic=0")
    session["arms"] = [{**a, "index": i} for i, a in enumerate([*session["arms"], fixed])]
    session["config"]["applied_advice"] = [{"arm": 3, "from_arm": 2, "apply": "mark_dynamic=0"}]
    view.show_session(SessionModel.from_json(session))
    view.arm_picker.setCurrentText("inductor(dynamic=False) + mark_dynamic=0")
    assert (
        "Advice applied (mark_dynamic=0): inductor(dynamic=False) + mark_dynamic=0 recompiled "
        "0 time(s) where inductor(dynamic=False) recompiled 1 time(s)."
    ) in view.summary.text()
