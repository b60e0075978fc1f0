"""One name and one number per compile figure; resume functions explained; the compile cost's
parts add up to it."""

from __future__ import annotations

import pytest

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.compile_terms import (
    compile_parts,
    frame_label,
    frame_text,
    parts_text,
    resume_explanation,
    split_problem,
)
from tcprof.profiler.protocol.event_text import describe
from tcprof.profiler.report.html import esc
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections.insight import insight
from tests.support.typed import row_of

RESUME = "torch_dynamo_resume_in_forward_at_16"
ROW = {
    "batch_size": 8,
    "status": "ok",
    "compile_cold_s": 12.46,
    "compile_breakdown": {"dynamo_s": 8.42, "backend_s": 6.0, "inductor_s": 4.5, "code_gen_s": 2.0},
}


def test_a_resume_function_is_explained_and_other_frames_are_left_alone():
    assert resume_explanation(RESUME) == (
        "the rest of `forward` after the graph break at line 16, compiled as its own graph"
    )
    assert resume_explanation("torch_dynamo_resume_in_my_fn_at_3") is not None
    assert frame_label(RESUME) == "forward after line 16"
    assert frame_text(RESUME).startswith(f"{RESUME} (the rest of `forward`")
    for plain in ("forward", None, "torch_dynamo_resume_in_forward"):
        assert resume_explanation(plain) is None
        assert frame_text(plain) == str(plain or "?")


def test_the_parts_add_up_to_the_compile_cost_and_name_the_rest():
    parts = compile_parts(ROW)
    assert [name for name, *_ in parts] == [
        "TorchDynamo tracing",
        "AOTAutograd and backend",
        "Inductor lowering",
        "Inductor code generation",
        "other",
    ]
    assert sum(seconds for _, seconds, _ in parts) == pytest.approx(12.46)
    assert dict((n, s) for n, s, _ in parts)["other"] == pytest.approx(12.46 - 8.42)
    assert "guard building" in parts[-1][2]
    assert parts_text(ROW).startswith(
        "compile cost 12.46 s (torch's compile timer 8.42 s of it) = TorchDynamo tracing 2.42 + "
    )
    # torch's timers beyond the cost (eager's excess subtracted): no negative part, the split
    # says why it cannot be made
    over = {**ROW, "compile_cold_s": 8.0}
    assert compile_parts(over) == [] and parts_text(over) == ""
    assert "cannot be split" in (split_problem(over) or "")
    assert "8.42 s" in (split_problem(over) or "") and split_problem(ROW) is None
    # only the outer timer: tracing is all of it; no timer or no cost: no parts
    assert [
        n for n, *_ in compile_parts({"compile_s": 2.0, "compile_breakdown": {"dynamo_s": 1.5}})
    ] == [
        "TorchDynamo tracing",
        "other",
    ]
    assert (
        compile_parts({"compile_cold_s": 1.0})
        == []
        == compile_parts({"compile_breakdown": {"dynamo_s": 1}})
    )


def test_the_log_lines_name_torchs_timer_not_the_compile_cost():
    compile_line = describe(
        {"type": "compile", "batch_size": 8, "kind": "first", "frame": RESUME, "seconds": 8.42}
    )
    assert compile_line == (
        f"bs 8: TorchDynamo compile of {RESUME} (the rest of `forward` after the graph break at "
        "line 16, compiled as its own graph), 8.42 s by torch's compile timer"
    )
    fallback = describe({"type": "fallback", "batch_size": 8, "frame": RESUME})
    assert "the rest of `forward`" in fallback


def test_the_reports_explain_resume_functions_and_show_the_parts():
    arm = {
        "name": "inductor",
        "backend": "inductor",
        "results": [ROW],
        "recompiles": [{"batch_size": 16, "frame": RESUME, "reason": "size mismatch"}],
    }
    session = {"config": {"source": {"path": "m.py"}}, "arms": [arm]}
    html = insight(SessionModel.read(session), esc)
    assert "the rest of `forward` after the graph break at line 16" in html
    assert (
        "compile cost 12.46 s (torch&#x27;s compile timer 8.42 s of it) = TorchDynamo" in html
        and "other 4.04" in html
    )
    md = render_markdown(SessionModel.read(session))
    assert "(the rest of forward after the graph break at line 16, compiled as its own graph)" in md


def test_the_lazy_backward_compile_is_a_part_of_its_own_and_no_part_is_negative():
    row = {**ROW, "compile_breakdown": {**ROW["compile_breakdown"], "backward_s": 3.0}}
    parts = dict((n, s) for n, s, _ in compile_parts(row))
    assert parts["backward compile"] == pytest.approx(3.0)
    assert parts["other"] == pytest.approx(12.46 - 8.42 - 3.0)
    assert sum(parts.values()) == pytest.approx(12.46)
    assert min(parts.values()) >= 0
    # a rounding-sized negative remainder reads as zero, not as a wrong split
    tight = {**row, "compile_cold_s": 8.42 + 3.0 - 0.004}
    assert dict((n, s) for n, s, _ in compile_parts(tight))["other"] == 0.0


def test_every_view_writes_a_compile_figure_with_the_same_digits():
    from tcprof.profiler.analysis.verdict import arm_verdict
    from tcprof.profiler.model.arm import Arm
    from tcprof.profiler.model.row import Row
    from tcprof.profiler.report.sections.cells import fmt_compile
    from tcprof.profiler.report.sections.summary import _compile_card

    row = {
        **ROW,
        "compile_cold_s": 9.8812,
        "speedup": 1.2,
        "speedup_ci": [1.1, 1.3],
        "verdict": "faster",
        "break_even_cold_steps": 1000.0,
        "break_even_cold_ci": [900.0, 1200.0],
    }
    second = {**row, "batch_size": 16, "compile_cold_s": 0.7}
    assert units.seconds(9.8812) == "9.88 s"
    assert fmt_compile(row_of(row)).startswith("9.88")
    assert "9.88 s" in parts_text(row)
    arm = Arm.of({"name": "inductor", "results": [row, second]}, False, None)
    text = arm_verdict(arm, stopped=False).text
    assert "its 9.88 s compile" in text, text
    # the report's card quotes each batch size's figure, never a sum the table does not show
    card = _compile_card([Row.of("inductor", r, False) for r in (row, second)])
    assert "cold 9.88 s at bs 8" in card and "cold 0.70 s at bs 16" in card
    assert "10.58" not in card
