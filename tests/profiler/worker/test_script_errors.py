"""What a script run says when the script fails, each in one line (the worker driven in this
process: tests/support/script_harness.py)."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT
from tests.support.script_harness import of_type, schedule, script_config, serve

pytestmark = pytest.mark.timeout(120, method="thread")
BROKEN = ROOT / "tests" / "support" / "scripts" / "broken"


def _first_error(name: str, *args: str, **fields: object) -> dict:
    events = serve(schedule(script_config(BROKEN / name, args, **fields))[:3])  # load, prepare, ...
    done = of_type(events, "done")
    assert done[1] == {"type": "done", "cmd": "prepare", "failed": True}
    return of_type(events, "error")[0]


def test_a_script_that_raises_before_its_first_step_shows_its_own_traceback_first():
    error = _first_error("raises_early.py")
    assert error["kind"] == "load"
    assert error["message"] == (
        "the script raised before its first optimizer step: ValueError: the data folder is "
        "missing (raises_early.py:7)"
    )
    lines = error["traceback"].splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1].startswith(f'  File "{BROKEN / "raises_early.py"}", line 11')  # no tcprof frame
    assert "tcprof" not in error["traceback"]


def test_a_script_that_never_steps_an_optimizer_is_told_about_step_on_forward():
    error = _first_error("no_optimizer.py", no_step_timeout_s=1.5)
    assert error["kind"] == "usage"
    assert error["message"] == (
        "no optimizer step in 1.5 s: is this a training script? `--step-on forward` for "
        "inference (or a longer --no-step-timeout)"
    )


def test_a_script_that_reads_stdin_gets_nothing_and_says_so():
    error = _first_error("reads_stdin.py")
    assert error["message"] == (
        "the script read from stdin before its first optimizer step (input()?): tcprof gives "
        "it /dev/null; pass what it asks for as arguments (reads_stdin.py:6)"
    )


def test_a_script_that_ends_early_says_how_many_steps_it_ran_and_what_to_change():
    cfg = script_config(BROKEN / "exits_early.py", ("5",))
    events = serve(schedule(cfg))
    error = of_type(events, "error")[0]
    assert error["kind"] == "usage" and error["batch_size"] == 1
    assert error["message"].startswith(
        "the script ended by itself after 5 optimizer steps; this run needs 8 (1 first + "
        "--warmup 1 + --steps 4 in 2 blocks, each after a discarded step): lower --steps, "
        "--warmup or --blocks"
    )
    # the block it was in failed; what was measured before stands
    assert [e.get("failed") for e in of_type(events, "done")] == [None, None, None, True, True]
    assert len(of_type(events, "block_done")) == 1


def test_a_script_that_exits_with_an_error_code_is_named_with_it(tmp_path):
    path = tmp_path / "argparse_error.py"
    path.write_text("import argparse\nargparse.ArgumentParser().parse_args()\n")
    events = serve(schedule(script_config(path, ("--unknown",)))[:2])
    error = of_type(events, "error")[0]
    assert error["message"] == (
        "the script exited with code 2 before its first optimizer step (its output is in the log)"
    )
