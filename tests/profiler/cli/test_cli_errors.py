"""Bad input: a one-line cause, the traceback in events.jsonl, exit 1 (2 for usage), and what
did run keeps its results."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.cli import FAST, FAST_CHECKED, MODELS, arm, events, fast_args, run_cli


def _error_events(out):
    return [e for e in events(out) if e["type"] == "error"]


def test_missing_file(tmp_path):
    """A usage error before anything runs: one line, exit 2, no session folder."""
    missing = tmp_path / "nope.py"
    rc, stdout, stderr, s = run_cli([str(missing), "--arms", "eager", *FAST], tmp_path / "out")
    assert rc == 2 and s is None and not (tmp_path / "out").exists()
    assert stderr == f"tcprof: error: model file not found: {missing}\n" and stdout == ""
    rc, _, stderr, _ = run_cli([str(tmp_path), "--arms", "eager", *FAST], tmp_path / "out")
    assert rc == 2 and stderr.strip().endswith(
        "is a folder: give the model file (a .py defining the model)"
    )


def test_syntax_error_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import torch.nn as nn\n\nclass M(nn.Module)\n    pass\n")
    rc, stdout, _, s = run_cli([str(bad), "--arms", "eager", *FAST], tmp_path / "out")
    assert rc == 1
    err = arm(s, "eager")["error"]
    assert err["kind"] == "syntax" and err["line"] == 3 and "bad.py" in err["message"]


def test_file_with_no_module(tmp_path):
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    rc, _, _, s = run_cli([str(empty), "--arms", "eager", *FAST], tmp_path / "out")
    assert rc == 1
    assert "no nn.Module" in arm(s, "eager")["error"]["message"]


def test_factory_that_raises_keeps_the_traceback(tmp_path):
    rc, _, _, s = run_cli(
        [str(MODELS / "gpt_config.py"), "--factory", "GPT(None)", "--arms", "eager", *FAST],
        tmp_path,
    )
    assert rc == 1
    assert "factory 'GPT(None)' raised AttributeError" in arm(s, "eager")["error"]["message"]
    tb = _error_events(tmp_path)[0]["traceback"]
    assert "Traceback" in tb and "gpt_config.py" in tb


def test_shape_mismatch_at_first_forward(tmp_path):
    rc, _, _, s = run_cli(
        [
            "--example",
            "simple",
            "--input-shape",
            "5",
            "--arms",
            "eager,aot_eager",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    assert rc == 1
    for name in ("eager", "aot_eager"):
        err = arm(s, name)["error"]
        assert err["kind"] == "forward", err
        assert "simple.py:12" in err["message"] and err["line"] == 12
        assert "5" in err["message"] and "10" in err["message"], "the shapes are named"


def test_model_that_raises_in_backward(tmp_path):
    rc, _, _, s = run_cli([str(MODELS / "broken_backward.py"), "--arms", "eager", *FAST], tmp_path)
    assert rc == 1
    err = arm(s, "eager")["error"]
    assert err["kind"] == "backward" and "boom in backward" in err["message"]
    assert err["line"] and err["file"].endswith("broken_backward.py")


def test_compile_error_in_one_arm_keeps_the_others(tmp_path):
    rc, stdout, _, s = run_cli(
        [
            str(MODELS / "relu_model.py"),
            "--arms",
            "eager,relu_compile_error_TESTING_ONLY,aot_eager",
            "--batch-sizes",
            "4,8",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    assert rc == 1
    bad = arm(s, "relu_compile_error_TESTING_ONLY")
    assert bad["error"]["kind"] == "compile"
    assert "torch.compile failed" in bad["error"]["message"]
    for name in ("eager", "aot_eager"):
        assert [r["status"] for r in arm(s, name)["results"]] == ["ok", "ok"]
    assert "Traceback" in _error_events(tmp_path)[0]["traceback"]


def test_runtime_error_backend(tmp_path):
    rc, _, _, s = run_cli(
        [
            str(MODELS / "relu_model.py"),
            "--arms",
            "eager,relu_runtime_error_TESTING_ONLY",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    assert rc == 1
    assert arm(s, "relu_runtime_error_TESTING_ONLY")["error"] is not None
    assert arm(s, "eager")["results"][0]["status"] == "ok"


def test_accuracy_error_backend_fails_the_accuracy_check(tmp_path):
    rc, stdout, _, s = run_cli(
        [
            str(MODELS / "relu_model.py"),
            "--arms",
            "eager,relu_accuracy_error_TESTING_ONLY",
            *FAST_CHECKED,
        ],
        tmp_path,
    )
    row = arm(s, "relu_accuracy_error_TESTING_ONLY")["results"][0]
    assert row["accuracy"]["status"] == "fail"
    assert "fail" in stdout


def test_crashed_worker_is_classified(tmp_path):
    rc, _, _, s = run_cli([str(MODELS / "crash.py"), "--arms", "eager", *FAST], tmp_path)
    assert rc == 1
    err = arm(s, "eager")["error"]
    assert err["kind"] == "crash" and "code 3" in err["message"]


@pytest.mark.parametrize(
    "args, line",
    [
        (
            ["--arms", "eager; inducter"],
            "unknown torch.compile backend 'inducter': did you mean 'inductor'?",
        ),
        (["--arms", "eager,no_such_backend"], "unknown torch.compile backend 'no_such_backend';"),
        (
            ["--arms", "eager", "--device", "mps"],  # never there on Linux
            "device 'mps' was asked for, but this torch build sees none (devices here: cpu",
        ),
    ],
)
@pytest.mark.skipif(sys.platform == "darwin", reason="mps may be there")
def test_a_mistake_torch_finds_is_refused_before_any_arm_runs(tmp_path, args, line):
    """Checked once by a worker with torch loaded, before the first round: one line, exit 2,
    no round banner, no step, and no session folder (the --out can be used again at once)."""
    out = tmp_path / "out"
    rc, stdout, stderr, s = run_cli(["--example", "simple", *args, *fast_args(quiet=False)], out)
    assert rc == 2 and s is None and stdout == "" and not out.exists()
    assert stderr.startswith(f"tcprof: error: {line}") and stderr.count("\n") == 1, stderr
    assert "round" not in stderr


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--batch-sizes", "8,x"], "not a positive integer"),
        (["--batch-sizes", "0"], "not a positive integer"),
        (["--arms", "aot_eager:mode=max-autotune"], "only applies to backend 'inductor'"),
        (["--arms", "inductor:mode=fast"], "unknown mode"),
        (["--input-shape", "3xfoo"], "is not of the form"),
        (["--steps", "0"], "--steps"),
    ],
)
def test_usage_errors_exit_2_before_anything_runs(tmp_path, args, needle):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "profiler",
            "run",
            "--example",
            "simple",
            *args,
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert proc.stderr.count("\n") == 1, "one line"


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_timeout_ends_every_worker_and_keeps_results(tmp_path):
    rc, _, _, s = run_cli(
        [
            str(MODELS / "slow.py"),
            "--arms",
            "eager",
            "--steps",
            "100000",
            "--warmup",
            "0",
            "--timeout",
            "12",
            "--quiet",
        ],
        tmp_path,
    )
    assert rc == 1
    assert s["status"] == "timeout"
    assert s["arms"][0]["results"][0]["steps"] > 0, "steps measured before the timeout are kept"


FORWARD_RAISES = """
import torch


class Exploding(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(8, 8)

    def forward(self, x):
        raise RuntimeError("forward exploded on purpose")
"""


@pytest.mark.parametrize(
    "model, cause", [("forward_raises", "forward exploded on purpose"), ("crash.py", "code 3")]
)
def test_a_failed_run_ends_on_its_cause_after_no_round_that_did_not_run(tmp_path, model, cause):
    """Every arm fails in the first round: no banner for the rounds that will not run, and the
    last line read is the cause, its location said once."""
    if model == "forward_raises":
        path = tmp_path / "exploding.py"
        path.write_text(FORWARD_RAISES)
        args = [str(path), "--input-shape", "8"]
    else:
        args = [str(MODELS / model)]
    rc, stdout, stderr, s = run_cli(
        [*args, "--arms", "eager", *fast_args(quiet=False), "--replicates", "3"], tmp_path / "o"
    )
    assert rc == 1 and s is not None
    last = [line for line in (stdout + stderr).splitlines() if line.strip()][-1]
    assert last.startswith("tcprof: error: eager: ") and cause in last, last
    assert "round 2/3" not in stderr and "round 3/3" not in stderr
    for line in stderr.splitlines():
        if "exploding.py:" in line:
            assert line.count("exploding.py:") == 1, line
