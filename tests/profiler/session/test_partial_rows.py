"""A batch size cut short keeps its numbers and says so: "stopped at 2/4" in the row, the
terminal table, the verdict, both reports and a comparison; sessions saved before the
`partial` key read as whole. Rows folded from events (no worker) and one run of scripted fake
workers cut short by its timeout."""

from __future__ import annotations

import copy
from typing import Any

from tcprof.profiler.analysis.verdict import verdict_lines
from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.report.compare import comparison_cells, diff_sessions, render
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections.table import table_rows
from tcprof.profiler.run.runner import Runner
from tcprof.profiler.session.fold import SessionFold
from tests.support.fake_worker import ArmScript, FakeWorkers, Fault


def _config(**overrides: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "source": ModelSource("model.py"),
        "arms": (ArmSpec("eager"), ArmSpec("aot_eager")),
        "batch_sizes": (8,),
        "warmup": 0,
        "steps": 4,
        "blocks": 2,
        "replicates": 1,
        "accuracy": False,
        **overrides,
    }
    return RunConfig(**fields).to_dict()


def _stopped_session(measured: dict[int, list[float]], status: str = "stopped") -> dict[str, Any]:
    """Each arm measured these steps at bs 8 (block 0 holds them all) and the run ended
    before any arm finished the batch size."""
    s = SessionFold()
    s.apply({"type": "run_start", "config": _config(), "wall_time": 1_700_000_000.0})
    for arm, ms in measured.items():
        s.apply({"type": "first_step", "arm": arm, "batch_size": 8, "ms": 30.0})
        s.apply(
            {"type": "steps", "arm": arm, "batch_size": 8, "phase": "measure", "block": 0, "ms": ms}
        )
    s.apply({"type": "run_end", "status": status, "wall_time": 1_700_000_010.0})
    return s.to_dict()


def _rows(session: dict[str, Any]) -> list[dict[str, Any]]:
    return [a["results"][0] for a in session["arms"]]


def test_a_row_cut_short_is_stopped_with_its_steps_and_keeps_its_numbers():
    session = _stopped_session({0: [2.0, 2.0, 2.0, 2.0], 1: [1.0, 1.0]})
    whole, cut = _rows(session)
    assert (whole["status"], whole["partial"], whole["steps_measured"]) == ("stopped", False, 4)
    assert (cut["status"], cut["partial"]) == ("stopped", True)
    assert (cut["steps_measured"], cut["steps_planned"]) == (2, 4)
    assert cut["median_ms"] == 1.0 and cut["speedup"] == 2.0, "the numbers are kept"
    assert session_problem(session) is None
    bad = copy.deepcopy(session)
    bad["arms"][1]["results"][0]["partial"] = "yes"
    assert "partial" in (session_problem(bad) or "")


def test_every_view_marks_the_partial_row():
    session = _stopped_session({0: [2.0, 2.0, 2.0, 2.0], 1: [1.0, 1.0]})
    header, rows = table_rows(SessionModel.read(session))
    cells = dict(zip(header, rows[1], strict=True))
    assert cells["status"] == "stopped at 2/4"
    assert cells["median ms"] == "1.00 (partial)"
    assert cells["speedup [95% CI]"].endswith("(partial)")
    assert rows[0][header.index("median ms")] == "2.00", "the whole row is not marked"
    (line,) = verdict_lines(SessionModel.read(session))
    assert "bs 8 (stopped at 2/4)" in line and "partial" in line
    assert "stopped at 2/4" in render_summary(SessionModel.read(session))  # tcprof run's table
    assert "| stopped at 2/4 |" in render_markdown(SessionModel.read(session))
    html = render_html(SessionModel.read(session))
    assert "stopped at 2/4" in html and "measured 2 of the 4 steps" in html
    # the card: one round gives no figure to quote, and the cut-short size is named
    assert '<div class="big muted">not settled</div>' in html
    assert "partial: bs 8 stopped at 2/4" in html


def test_a_comparison_says_which_side_was_partial():
    before = _stopped_session({0: [2.0] * 4, 1: [1.0] * 4}, status="completed")
    after = _stopped_session({0: [2.0] * 4, 1: [1.0, 1.0]})
    after["started_at"] = before["started_at"] + 60
    comparison = diff_sessions(SessionModel.read(before), SessionModel.read(after))
    compiled = next(r for r in comparison.rows if r.arm == "aot_eager")
    assert compiled.partial_before is None and compiled.partial_after == "2/4"
    median = comparison_cells(compiled)[2]
    assert median.endswith("(partial: after 2/4)")
    assert "(partial: after 2/4)" in render(comparison, "a", "b")


def test_sessions_saved_before_the_partial_key_read_as_whole():
    session = _stopped_session({0: [2.0] * 4, 1: [1.0, 1.0]})
    for row in _rows(session):
        for key in ("partial", "steps_measured", "steps_planned"):
            row.pop(key)
        row["status"] = "ok"
    header, rows = table_rows(SessionModel.read(session))
    assert [r[header.index("status")] for r in rows] == ["ok", "ok"]
    assert "partial" not in rows[1][header.index("median ms")]
    assert session_problem(session) is None


def test_a_run_cut_short_by_its_timeout_marks_the_arm_that_hung_mid_batch_size():
    fakes = FakeWorkers({1: ArmScript(faults=(Fault("measure", "hang", block=1),))})
    config = RunConfig(**{**_fake_fields(), "timeout_s": 0.3})
    session = Runner(config, worker_factory=fakes).run().to_dict()
    assert session["status"] == "timeout"
    hung = session["arms"][1]["results"][0]
    assert (hung["status"], hung["partial"], hung["steps_measured"]) == ("stopped", True, 2)
    assert hung["steps_planned"] == 4 and hung["median_ms"] is not None


def _fake_fields() -> dict[str, Any]:
    return {
        "source": ModelSource("model.py"),
        "arms": (ArmSpec("eager"), ArmSpec("aot_eager")),
        "batch_sizes": (8,),
        "warmup": 1,
        "steps": 4,
        "blocks": 2,
        "replicates": 1,
        "min_block_ms": 0,
        "threads": 1,
        "accuracy": False,
    }


def test_a_run_stopped_after_a_compile_keeps_the_compile_already_measured():
    """Stopped after the compiled arm's first step and warm-up, before any block: its cold
    compile is the first step less the warm-up's steady step, not dropped."""
    s = SessionFold()
    s.apply({"type": "run_start", "config": _config(warmup=3), "wall_time": 1_700_000_000.0})
    s.apply({"type": "first_step", "arm": 0, "batch_size": 8, "ms": 12.0})
    s.apply({"type": "steps", "arm": 0, "batch_size": 8, "phase": "warmup", "ms": [2.0] * 3})
    s.apply({"type": "first_step", "arm": 1, "batch_size": 8, "ms": 4012.0})
    s.apply({"type": "steps", "arm": 1, "batch_size": 8, "phase": "warmup", "ms": [1.0] * 3})
    s.apply({"type": "run_end", "status": "stopped", "wall_time": 1_700_000_010.0})
    compiled = s.to_dict()["arms"][1]["results"][0]
    # 4012 - 1 = 4011 ms of excess, less eager's own 12 - 2 = 10 ms
    assert compiled["compile_cold_s"] == 4.001
