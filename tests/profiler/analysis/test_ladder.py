"""The backend ladder: each compiler stage as an arm, what each adds, and where accuracy breaks."""

from __future__ import annotations

import pytest

from tcprof.profiler.analysis.ladder import DEFAULT_STAGES, ladder_arms, minifier_command
from tcprof.profiler.config import DYNAMO_EAGER, ConfigError
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
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
    assert command in stdout and command in render_markdown(s)
    assert 'id="ladder"' in render_html(s)
    assert "backend='relu_accuracy_error_TESTING_ONLY'" in (out / "reproduce.py").read_text()
