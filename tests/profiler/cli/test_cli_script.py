"""`tcprof run -- python train.py ARGS` on real scripts: the guide's loop saved unchanged, and a
small GPT training recipe (configuration file, --key=value flags, gradient accumulation, a
GradScaler, AdamW with a schedule, an `if compile:` line, a memmap loader, evaluation and
checkpoints between steps), eager against aot_eager. One run of each, shared by the tests."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.support.paths import ROOT
from tests.support.script_cli import SHORT, arm, notes, run_script

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
SCRIPTS = ROOT / "tests" / "support" / "scripts"


@pytest.fixture(scope="module")
def guide(tmp_path_factory):
    out = tmp_path_factory.mktemp("guide")
    code, stdout, stderr, session = run_script(
        ["--arms", "eager,aot_eager", *SHORT], ["python", str(SCRIPTS / "guide_1x.py")], out
    )
    assert code == 0, stderr[-3000:]
    return session, stdout, out


@pytest.fixture(scope="module")
def gpt(tmp_path_factory):
    work = tmp_path_factory.mktemp("gpt")
    shutil.copytree(SCRIPTS / "tiny_gpt", work, dirs_exist_ok=True)
    out = work / "session"
    options = ["--arms", "eager,aot_eager", "--sweep", "batch_size=2,4", "--no-accuracy", *SHORT]
    command = ["python", "train.py", "config/train_tiny.py", "--batch_size={batch_size}"]
    command += ["--max_iters=30", "--eval_interval=4"]
    code, stdout, stderr, session = run_script(options, command, out, cwd=work)
    assert code == 0, stderr[-3000:]
    return session, stdout, work


def test_the_guides_loop_runs_unchanged_and_is_compiled_in_place(guide):
    session, stdout, _ = guide
    assert session["config"]["script"]["args"] == [] and session["config"]["batch_sizes"] == [1]
    assert (
        "`model`, SimpleModel (guide_1x.py:5), compiled in place with backend=aot_eager"
        in notes(session, "aot_eager")[-1]
    )
    row = arm(session, "aot_eager")["results"][0]
    assert (
        row["status"] == "ok" and row["steps"] == 4 and row["script"]["own_median_ms"] is not None
    )
    assert row["compile_status"] == "compiled" and row["compile_cold_s"] > 0
    assert "compute and the script's own time per step (medians):" in stdout


def test_the_guides_loss_curves_agree_from_the_same_seeds(guide):
    session, _, _ = guide
    accuracy = arm(session, "aot_eager")["results"][0]["accuracy"]
    assert accuracy["status"] == "pass" and accuracy["steps"] == 6
    curves = accuracy["curves"]
    assert curves["eager"] == curves["eager_again"]
    eager_timed = dict(arm(session, "eager")["results"][0]["script"]["loss_curve"])
    assert all(eager_timed[k] == curves["eager"][k] for k in eager_timed if k < 6)  # same seeds


def test_the_gpt_recipes_own_compile_takes_each_arms_options(gpt):
    session, _, work = gpt
    assert any(
        "the script's own torch.compile at train.py:108 (GPT) ran with backend=aot_eager" in t
        for t in notes(session, "aot_eager")
    )
    assert any(
        "returned it uncompiled: this is the eager arm" in t for t in notes(session, "eager")
    )
    assert (
        "the model is `model`, GPT (model.py:73), whose parameters AdamW at model.py:124"
        in notes(session, "eager")[0]
    )


def test_each_value_of_the_sweep_is_a_phase_of_its_own(gpt):
    session, stdout, _ = gpt
    for name in ("eager", "aot_eager"):
        rows = arm(session, name)["results"]
        assert [r["batch_size"] for r in rows] == [2, 4] and all(r["status"] == "ok" for r in rows)
        assert all(len(r["script"]["loss_curve"]) == 6 for r in rows)
    assert "batch_size=2" in stdout and "batch_size=4" in stdout


def test_evaluation_between_steps_recompiles_and_counts_as_the_scripts_own_time(gpt):
    session, _, _ = gpt
    reasons = [r["reason"] for r in arm(session, "aot_eager")["recompiles"]]
    assert any("grad_mode" in r for r in reasons)  # estimate_loss runs under torch.no_grad()
    sample = next(s for s in session["samples"] if s["arm"] == "eager" and s["batch_size"] == 2)
    assert max(sample["own_ms"]) > 3 * min(sample["own_ms"])  # the step with an evaluation


def test_the_files_the_script_wrote_are_listed_and_opening_the_session_runs_nothing(gpt):
    session, _, work = gpt
    written = {f["path"] for f in arm(session, "eager")["script"]["files"]}
    assert {
        str(work / "out-tiny" / "ckpt.pt"),
        str(work / "data" / "tiny" / "train.bin"),
    } <= written
    shutil.rmtree(work / "out-tiny")
    shutil.rmtree(work / "data")
    for command in (
        ["report", str(work / "session")],
        ["compare", str(work / "session"), str(work / "session")],
    ):
        subprocess.run(
            [sys.executable, "-m", "tcprof.profiler", *command],
            capture_output=True,
            timeout=120,
            cwd=work,
        )
    assert not (work / "out-tiny").exists() and not (work / "data").exists()


@pytest.mark.inductor
def test_the_guides_one_line_compile_against_inductor(tmp_path):
    """The guide's 2.0 loop (its one `torch.compile` line) eager against inductor: the line
    compiles with inductor in that arm, runs uncompiled in the eager arm, and the loss curves
    agree under fallback_random."""
    options = ["--arms", "eager,inductor", *SHORT]
    code, stdout, stderr, session = run_script(
        options, ["python", str(SCRIPTS / "guide_2x.py")], tmp_path
    )
    assert code == 0, stderr[-3000:]
    assert any(
        "torch.compile at guide_2x.py:14 (SimpleModel) ran with backend=inductor" in t
        for t in notes(session, "inductor")
    )
    row = arm(session, "inductor")["results"][0]
    assert row["status"] == "ok" and row["compile_status"] == "compiled"
    assert row["accuracy"]["status"] == "pass"
