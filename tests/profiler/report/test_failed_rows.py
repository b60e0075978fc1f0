"""A failed arm's row keeps what it measured before failing: its first step, its compile (torch's
compile timer, named so, where no steady step gave the cost) and the steps it ran, in the
terminal table, both reports and session.json; no break-even without a speedup. One run of
scripted fake workers, and rows folded from a script's events."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections.table import table_rows
from tcprof.profiler.run.runner import Runner
from tcprof.profiler.session.fold import SessionFold
from tests.support.fake_worker import ArmScript, FakeWorkers, Fault


def _config(**overrides: Any) -> RunConfig:
    fields: dict[str, Any] = {
        "source": ModelSource("model.py"),
        "arms": (ArmSpec("eager"), ArmSpec("aot_eager")),
        "batch_sizes": (8,),
        "warmup": 0,
        "steps": 4,
        "blocks": 2,
        "replicates": 1,
        "min_block_ms": 0,
        "threads": 1,
        "accuracy": False,
        **overrides,
    }
    return RunConfig(**fields)


def _cells(session: dict[str, Any], arm: int) -> dict[str, str]:
    header, rows = table_rows(SessionModel.read(session))
    return dict(zip(header, rows[arm], strict=True))


def test_an_arm_that_fails_after_its_first_step_keeps_its_first_step_and_compile():
    """The compiled arm compiles for 4 s in its first step, then fails before any steady step:
    its row says so and keeps both figures (it showed 'error' and compile '-')."""
    fakes = FakeWorkers(
        {1: ArmScript(step_ms=10.0, compile_s=4.0, faults=(Fault("measure", "fatal"),))}
    )
    session = Runner(_config(), worker_factory=fakes).run().to_dict()
    failed = session["arms"][1]["results"][0]
    assert failed["status"] == "error" and failed["first_step_ms"] == 4010.0
    assert failed["compile_cold_s"] is None, "no steady step: the cost cannot be computed"
    assert failed["compile_timer_s"] == 4.0
    assert failed["compile_missing"]["cold"] == "no steady step was measured"
    assert session_problem(session) is None
    cells = _cells(session, 1)
    assert cells["status"] == "error (first step 4.01 s)"
    assert cells["compile s cold/warm"] == "4.00 (torch's compile timer)"
    assert cells["break-even cold/warm"] == "-", "no speedup: nothing pays anything back"
    assert _cells(session, 0)["status"] == "ok", "the arm that ran is as it was"
    summary = render_summary(SessionModel.read(session))
    assert "error (first step 4.01 s)" in summary and "4.00 (torch's compile timer)" in summary
    markdown = render_markdown(SessionModel.read(session))
    assert (
        "| error (first step 4.01 s) |" in markdown and "4.00 (torch's compile timer)" in markdown
    )
    html = render_html(SessionModel.read(session))
    assert "error (first step 4.01 s)" in html and "4.00 (torch&#x27;s compile timer)" in html


def test_a_scripts_failed_row_counts_the_steps_it_ran():
    """A script that raises in its third optimizer step: the worker counted two, the row keeps
    them with the first step and torch's compile timer (the issue's 14.37 s and 11.49 s)."""
    s = SessionFold()
    config = _config(warmup=3).to_dict()
    s.apply({"type": "run_start", "config": config, "wall_time": 1_700_000_000.0})
    error = {"type": "error", "batch_size": 8, "kind": "runtime", "steps_run": 2}
    error |= {"message": "the script raised after 2 optimizer steps: RuntimeError: x (t.py:11)"}
    s.apply({"type": "first_step", "arm": 0, "batch_size": 8, "ms": 9.0, "compiles": 0})
    s.apply({**error, "arm": 0})
    compile_event = {"type": "compile", "arm": 1, "batch_size": 8, "step": 0, "kind": "first"}
    s.apply({**compile_event, "seconds": 11.49, "frame": "forward"})
    first = {"type": "first_step", "arm": 1, "batch_size": 8, "ms": 14370.0}
    s.apply({**first, "compile_s": 11.49, "compiles": 1})
    s.apply({**error, "arm": 1})
    s.apply({"type": "run_end", "status": "error", "wall_time": 1_700_000_010.0})
    session = s.to_dict()
    assert session["arms"][1]["results"][0]["error"]["steps_run"] == 2
    assert session_problem(session) is None
    cells = _cells(session, 1)
    assert cells["status"] == "error after 2 steps (first step 14.37 s)"
    assert cells["compile s cold/warm"] == "11.49 (torch's compile timer)"
    assert _cells(session, 0)["compile s cold/warm"] == "-", "eager compiles nothing"
