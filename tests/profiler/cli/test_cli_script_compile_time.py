"""`--no-step-timeout` counts the script's own time, not its compile: a script whose compile
takes longer than the timeout is measured (tests/support/scripts/slow_compile.py's compile
sleeps by construction)."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT
from tests.support.script_cli import SHORT, arm, run_script

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]
SCRIPT = ROOT / "tests" / "support" / "scripts" / "slow_compile.py"


def test_a_compile_longer_than_the_no_step_timeout_is_measured(tmp_path):
    options = ["--arms", "aot_eager", "--no-accuracy", "--no-step-timeout", "2", *SHORT]
    command = ["python", str(SCRIPT), "--trace-sleep", "3"]
    code, stdout, stderr, session = run_script(options, command, tmp_path)
    assert code == 0, stderr[-3000:]
    row = arm(session, "aot_eager")["results"][0]
    assert row["status"] == "ok" and row["median_ms"] is not None
    assert row["compile_s"] >= 3
