"""The backend ladder: each compiler stage as an arm, what each adds, and where accuracy breaks."""

from __future__ import annotations

import pytest

from tcprof.profiler.analysis.ladder import (
    DEFAULT_STAGES,
    ladder_arms,
    ladder_summary,
    minifier_command,
)
from tcprof.profiler.config import DYNAMO_EAGER, ConfigError
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections import ladder as ladder_section
from tests.support.cli import FAST, FAST_CHECKED, MODELS, run_cli


def test_the_default_ladder_and_a_given_one_start_from_eager():
    assert [a.backend for a in ladder_arms("")] == list(DEFAULT_STAGES)
    assert [a.backend for a in ladder_arms("aot_eager, inductor")] == [
        "eager",
        "aot_eager",
        "inductor",
    ]
    assert ladder_arms(DYNAMO_EAGER)[1].torch_backend == "eager"
    with pytest.raises(ConfigError, match="twice"):
        ladder_arms("aot_eager,aot_eager")
    with pytest.raises(ConfigError, match="not a backend name"):
        ladder_arms("aot eager")


def test_the_minifier_fits_the_stage_and_what_diverged():
    after = lambda stage, fwd: minifier_command(stage, fwd).split()[0]  # noqa: E731
    assert after("inductor", True) == 'TORCHDYNAMO_REPRO_AFTER="aot"'
    assert after("inductor", False) == 'TORCHDYNAMO_REPRO_AFTER="dynamo"'  # gradients
    assert after("aot_eager", True) == 'TORCHDYNAMO_REPRO_AFTER="dynamo"'  # aot wraps inductor only
    assert "TORCHDYNAMO_REPRO_LEVEL=4" in minifier_command("inductor", True)


def test_ladder_and_arms_together_is_a_usage_error(tmp_path):
    rc, _, stderr, _ = run_cli(
        [str(MODELS / "relu_model.py"), "--arms", "eager", "--ladder", *FAST], tmp_path / "run"
    )
    assert rc == 2 and "--arms or --ladder, not both" in stderr


def test_the_ladder_on_the_graph_break_example_passes_every_stage(tmp_path):
    stages = f"{DYNAMO_EAGER},aot_eager_decomp_partition"
    rc, stdout, stderr, s = run_cli(
        ["--example", "graph_break", "--ladder", stages, "--batch-sizes", "4", *FAST_CHECKED],
        tmp_path / "run",
    )
    assert rc == 0, stdout + stderr
    ladder = s["ladder"]
    assert [st["stage"] for st in ladder["stages"]] == ["eager", *stages.split(",")]
    assert [st["accuracy"] for st in ladder["stages"]] == ["baseline", "pass", "pass"]
    assert ladder["first_divergence"] is None and ladder["minifier"] is None
    aot = ladder["stages"][2]["per_batch_size"][0]
    assert aot["median_ms"] > 0 and isinstance(aot["added_ms"], float)
    assert "Backend ladder (what each stage adds)" in stdout
    assert "Every stage matched eager" in stdout


def test_a_diverging_stage_is_named_with_its_minifier_and_reproducer(tmp_path):
    out = tmp_path / "run"
    rc, stdout, stderr, s = run_cli(
        [str(MODELS / "relu_model.py"), "--ladder", "aot_eager,relu_accuracy_error_TESTING_ONLY"]
        + ["--batch-sizes", "4", *FAST_CHECKED],
        out,
    )
    assert rc == 0, stdout + stderr  # the run measured every stage; the failure is reported
    ladder = s["ladder"]
    assert [st["accuracy"] for st in ladder["stages"]] == ["baseline", "pass", "fail"]
    assert ladder["first_divergence"] == "relu_accuracy_error_TESTING_ONLY"
    command = 'TORCHDYNAMO_REPRO_AFTER="dynamo" TORCHDYNAMO_REPRO_LEVEL=4 python reproduce.py'
    assert ladder["minifier"] == command
    assert command in stdout and command in render_markdown(SessionModel.read(s))
    assert 'id="ladder"' in render_html(SessionModel.read(s))
    assert "backend='relu_accuracy_error_TESTING_ONLY'" in (out / "reproduce.py").read_text()


def _ladder_session(stage_rows):
    """A ladder session as session.json holds it: eager, then one compiled stage per entry,
    each with its result rows."""
    stages = ["eager", *stage_rows]
    arms = [
        {
            "index": i,
            "results": stage_rows.get(name)
            or [{"batch_size": 4, "status": "ok", "median_ms": 1.0, "accuracy": None}],
        }
        for i, name in enumerate(stages)
    ]
    config = {"ladder": True, "arms": [{"backend": name} for name in stages]}
    return {"config": config, "arms": arms}


def _row(bs, fell_back, status="pass"):
    return {
        "batch_size": bs,
        "status": "ok",
        "median_ms": 1.0,
        "fell_back": fell_back,
        "compile_status": "fell_back" if fell_back else "compiled",
        "accuracy": {"status": status, "worst": {"name": "output"}},
    }


def _verdict(session):
    return ladder_section.verdict(
        SessionModel.read({**session, "ladder": ladder_summary(SessionModel.from_json(session))})
    )


def test_a_ladder_whose_every_stage_fell_back_says_so_not_that_they_matched():
    session = _ladder_session(
        {DYNAMO_EAGER: [_row(4, True)], "aot_eager": [_row(4, True), _row(8, True)]}
    )
    ladder = ladder_summary(SessionModel.from_json(session))
    assert [st["accuracy"] for st in ladder["stages"]] == ["baseline", "fell back", "fell back"]
    assert ladder["all_fell_back"] and ladder["first_divergence"] is None
    text = _verdict(session)
    assert "matched" not in text
    assert "Every stage fell back to eager" in text and "nothing compiled was compared" in text
    model = SessionModel.read({**session, "ladder": ladder})
    found = ladder_section.rows(model)
    assert found[1][-1] == "fell back to eager (not compared)"
    lines = ladder_section.text_lines(model)
    assert "Every stage fell back to eager" in lines[-1]


def test_a_stage_that_fell_back_is_named_apart_from_those_that_matched():
    session = _ladder_session(
        {DYNAMO_EAGER: [_row(4, False)], "aot_eager": [_row(4, True)], "inductor": [_row(4, False)]}
    )
    assert not ladder_summary(SessionModel.from_json(session))["all_fell_back"]
    text = _verdict(session)
    assert not text.startswith("Every stage matched")
    assert "aot_eager fell back to eager and compared nothing compiled" in text
    # a stage that fell back at one batch size only: the other compared, that one did not
    partly = _ladder_session({"aot_eager": [_row(4, False), _row(8, True)]})
    assert ladder_summary(SessionModel.from_json(partly))["stages"][1]["accuracy"] == "pass"
    assert "aot_eager fell back to eager at batch size(s) 8" in _verdict(partly)
    # and a divergence at a stage that ran eagerly is eager against eager, not the compiler's
    noisy = _ladder_session({"aot_eager": [_row(4, True, status="fail")]})
    assert ladder_summary(SessionModel.from_json(noisy))["first_divergence"] is None


def test_a_ladder_with_nothing_fallen_back_still_matches():
    session = _ladder_session({DYNAMO_EAGER: [_row(4, False)], "aot_eager": [_row(4, False)]})
    assert _verdict(session) == "Every stage matched eager within the accuracy tolerance."


def test_the_ladder_of_a_stage_that_fails_to_compile_under_suppress_errors_fell_back(tmp_path):
    rc, stdout, stderr, s = run_cli(
        [str(MODELS / "relu_model.py"), "--ladder", "relu_compile_error_TESTING_ONLY"]
        + ["--suppress-errors", "--batch-sizes", "4", *FAST_CHECKED],
        tmp_path / "run",
    )
    assert s is not None, stdout + stderr
    ladder = s["ladder"]
    assert [st["accuracy"] for st in ladder["stages"]] == ["baseline", "fell back"], ladder
    assert ladder["all_fell_back"] and ladder["first_divergence"] is None
    assert "Every stage matched" not in stdout
    assert "Every stage fell back to eager" in stdout


def _unchecked(bs):
    return {"batch_size": bs, "status": "ok", "median_ms": 1.0, "accuracy": None}


def test_a_ladder_run_without_the_accuracy_check_says_so_not_that_it_matched():
    session = _ladder_session({DYNAMO_EAGER: [_unchecked(4)], "aot_eager": [_unchecked(4)]})
    stages = ladder_summary(SessionModel.from_json(session))["stages"]
    assert [st["accuracy"] for st in stages] == ["baseline", "not checked", "not checked"]
    text = _verdict(session)
    assert "matched" not in text and "not checked (--no-accuracy)" in text
    # one stage checked, one not: the unchecked one is named, not counted as a match
    mixed = _ladder_session({DYNAMO_EAGER: [_row(4, False)], "aot_eager": [_unchecked(4)]})
    text = _verdict(mixed)
    assert not text.startswith("Every stage matched") and "aot_eager had no accuracy check" in text
