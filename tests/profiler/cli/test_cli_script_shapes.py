"""Compile insight from a script's own model and data: a script whose batches vary in sequence
length recompiles on the shapes its own data makes, and the advice names the fix (mark_dynamic
on the time dimension, or dynamic=True); graph breaks are placed at the script's and its model
file's lines."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT
from tests.support.script_cli import SHORT, arm, run_script

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]
SCRIPTS = ROOT / "tests" / "support" / "scripts"
SCRIPT = SCRIPTS / "varying_seq.py"


def test_varying_sequence_lengths_recompile_with_advice_at_the_scripts_lines(tmp_path):
    options = ["--arms", "eager,aot_eager:dynamic=false", "--no-accuracy", *SHORT]
    code, stdout, stderr, session = run_script(options, ["python", str(SCRIPT)], tmp_path)
    assert code == 0, stderr[-3000:]
    compiled = arm(session, "aot_eager(dynamic=False)")
    reasons = [r["reason"] for r in compiled["recompiles"]]
    assert reasons and all("size mismatch at index 1" in r for r in reasons)
    forward = _line_of(SCRIPT, "def forward(self, tokens")
    assert {(r["file"], r["line"], r["frame"]) for r in compiled["recompiles"]} == {
        (str(SCRIPT), forward, "forward")
    }
    assert all("tensor 'tokens'" in r for r in reasons)  # the script's own argument's name
    advice = " ".join(a["fix"] for a in compiled["advice"])
    assert "torch._dynamo.mark_dynamic(x, 1)" in advice and "dynamic=True" in advice
    assert "advice:" in stdout


def _line_of(path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_graph_breaks_are_placed_at_the_scripts_and_its_models_lines(tmp_path):
    script, model = SCRIPTS / "breaks" / "train.py", SCRIPTS / "breaks" / "model.py"
    options = ["--arms", "eager,aot_eager", "--no-accuracy", *SHORT]
    code, stdout, stderr, session = run_script(options, ["python", str(script)], tmp_path)
    assert code == 0, stderr[-3000:]
    breaks = {(b["file"], b["line"]): b for b in arm(session, "aot_eager")["graph_breaks"]}
    item = (str(model), _line_of(model, "scale = x.abs().mean().item()"))
    branch = (str(script), _line_of(script, "if h.sum() > 0:"))
    assert item in breaks and branch in breaks, sorted(breaks)
    assert "Tensor.item()" in breaks[item]["reason"], breaks[item]
    assert f"model.py:{item[1]}" in stdout and f"train.py:{branch[1]}" in stdout
    assert arm(session, "aot_eager")["results"][0]["graph_breaks"] >= 2
