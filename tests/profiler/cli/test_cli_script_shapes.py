"""A script whose batches vary in sequence length recompiles on the shapes its own data makes,
and the advice names the fix (mark_dynamic on the time dimension, or dynamic=True)."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT
from tests.support.script_cli import SHORT, arm, run_script

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]
SCRIPT = ROOT / "tests" / "support" / "scripts" / "varying_seq.py"


def test_varying_sequence_lengths_recompile_with_advice_at_the_scripts_lines(tmp_path):
    options = ["--arms", "eager,aot_eager:dynamic=false", "--no-accuracy", *SHORT]
    code, stdout, stderr, session = run_script(options, ["python", str(SCRIPT)], tmp_path)
    assert code == 0, stderr[-3000:]
    compiled = arm(session, "aot_eager(dynamic=False)")
    reasons = [r["reason"] for r in compiled["recompiles"]]
    assert reasons and all("size mismatch at index 1" in r for r in reasons)
    assert {r["file"] for r in compiled["recompiles"]} == {str(SCRIPT)}
    advice = " ".join(a["fix"] for a in compiled["advice"])
    assert "torch._dynamo.mark_dynamic(x, 1)" in advice and "dynamic=True" in advice
    assert "advice:" in stdout
