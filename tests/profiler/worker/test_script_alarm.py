"""The no-step timeout counts the script's own time, not its compiles: a compile longer than
the timeout is waited for, and a script that compiles and never steps still ends after the
timeout of its own time (the worker driven in this process: tests/support/script_harness.py).
tests/support/scripts/slow_compile.py's compile sleeps SLEEP_S (a second run in this process
keeps the first's sleep: both tests use the same)."""

from __future__ import annotations

import time

import pytest

from tcprof.profiler.config import ArmSpec
from tests.support.paths import ROOT
from tests.support.script_harness import of_type, schedule, script_config, serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180, method="thread")]
SCRIPT = ROOT / "tests" / "support" / "scripts" / "slow_compile.py"
SLEEP_S = "2.5"
TIMEOUT_S = 1.5


def _serve(*args: str, commands: int | None = None) -> tuple[list[dict], float]:
    cfg = script_config(
        SCRIPT,
        ("--trace-sleep", SLEEP_S, *args),
        arms=(ArmSpec("aot_eager"),),
        no_step_timeout_s=TIMEOUT_S,
    )
    started = time.monotonic()
    events = serve(schedule(cfg)[:commands])
    return events, time.monotonic() - started


def test_a_compile_longer_than_the_timeout_is_waited_for():
    events, _ = _serve()
    assert not of_type(events, "error")
    first = of_type(events, "first_step")[0]
    assert first["compile_s"] >= float(SLEEP_S) > TIMEOUT_S
    assert len(of_type(events, "block_done")) == 2


def test_a_script_that_compiles_and_never_steps_still_ends_with_the_no_step_message():
    events, seconds = _serve("--no-optimizer", commands=3)  # load, prepare, ...
    error = of_type(events, "error")[0]
    assert error["kind"] == "usage"
    assert error["message"].startswith(f"no optimizer step in {TIMEOUT_S:g} s: ")
    assert seconds >= float(SLEEP_S) + TIMEOUT_S
