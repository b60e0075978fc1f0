"""A script's processes: DataLoader workers (num_workers=2) work and never outlive the run,
even when tcprof itself is killed with SIGKILL; a script that hangs is ended by the stall
timeout; a script that fails says so in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from tests.support.paths import ROOT
from tests.support.script_cli import SHORT, arm, run_script

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]
SCRIPTS = ROOT / "tests" / "support" / "scripts"


def test_a_dataloader_with_worker_processes_is_measured(tmp_path):
    command = ["python", str(SCRIPTS / "dataloader_mlp.py"), "--epochs", "1"]
    code, stdout, stderr, session = run_script(
        ["--arms", "eager,aot_eager", "--no-accuracy", *SHORT], command, tmp_path
    )
    assert code == 0, stderr[-3000:]
    for name in ("eager", "aot_eager"):
        row = arm(session, name)["results"][0]
        assert row["status"] == "ok" and row["script"]["own_median_ms"] is not None


def _alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.Error:
            continue
    return out


def test_killing_tcprof_leaves_no_process_of_the_script_behind(tmp_path):
    """SIGKILL gives tcprof no chance to stop anything: the workers die with it (the kernel's
    parent-death signal) and each worker's group reaper ends the script's own children."""
    options = [
        "--arms",
        "eager",
        "--no-accuracy",
        "--warmup",
        "1",
        "--steps",
        "100000",
        "--threads",
        "1",
        "--quiet",
    ]
    command = ["python", str(SCRIPTS / "dataloader_mlp.py"), "--epochs", "1000"]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tcprof.profiler",
            "run",
            *options,
            "--out",
            str(tmp_path),
            "--",
            *command,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    events = tmp_path / "events.jsonl"
    try:
        deadline = time.monotonic() + 240
        seen: list[dict] = []
        while time.monotonic() < deadline and proc.poll() is None:
            lines = events.read_text().splitlines() if events.exists() else []
            seen = [json.loads(line) for line in lines if line.strip().endswith("}")]
            if any(e.get("type") == "steps" for e in seen):
                break
            time.sleep(0.2)
        worker = next(e["pid"] for e in seen if e.get("type") == "hello")
        below = psutil.Process(worker).children(recursive=True)
        loaders = [c for c in below if "-I" not in c.cmdline()]  # the reaper runs python -I -c
        assert len(loaders) >= 2, f"expected the 2 DataLoader workers under the worker: {below}"
        pids = [worker, *(c.pid for c in below)]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        # within 3 s: a DataLoader worker's own watchdog notices a dead parent only every 5 s
        deadline = time.monotonic() + 3
        while _alive(pids) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(pids), f"left running: {_alive(pids)}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _alive(pids if "pids" in locals() else []):
            os.kill(pid, signal.SIGKILL)


def test_a_script_that_hangs_is_ended_by_the_stall_timeout(tmp_path):
    options = ["--arms", "eager", "--no-accuracy", "--stall-timeout", "3", *SHORT]
    code, stdout, stderr, session = run_script(
        options, ["python", str(SCRIPTS / "broken" / "hangs.py")], tmp_path
    )
    assert code == 1
    error = arm(session, "eager")["error"]
    assert error["kind"] == "stall" and "no progress for 3 s" in error["message"]


def test_a_script_that_raises_fails_in_one_line_with_its_traceback_kept(tmp_path):
    options = ["--arms", "eager", "--no-accuracy", *SHORT]
    code, stdout, stderr, session = run_script(
        options, ["python", str(SCRIPTS / "broken" / "raises_early.py")], tmp_path
    )
    assert code == 1
    line = (
        "eager: error (load): the script raised before its first optimizer step: ValueError: "
        "the data folder is missing (raises_early.py:7)"
    )
    assert line in stdout.splitlines()
    error = next(e for e in session["errors"] if e.get("kind") == "load")
    assert error["traceback"].splitlines()[1].endswith('raises_early.py", line 11, in <module>')


def test_a_script_that_raises_at_step_3_ends_on_its_cause_and_keeps_what_it_ran(tmp_path):
    """eager against aot_eager, one round, a script that raises in its third optimizer step
    (inside the warm-up): the cause is the last line, its location said once, no footer about
    intervals or rounds, and each row keeps its first step (the compiled one torch's compile
    timer, named so: no steady step gave the cost)."""
    options = ["--arms", "eager; aot_eager", "--no-accuracy", *SHORT, "--warmup", "3"]
    command = ["python", str(SCRIPTS / "broken" / "raises_at_step_3.py")]
    code, stdout, stderr, session = run_script(options, command, tmp_path)
    assert code == 1 and session is not None
    cause = (
        "runtime: the script raised after 2 optimizer steps: RuntimeError: the batch at step 3 "
        "is corrupt (raises_at_step_3.py:11)"
    )
    last = [line for line in (stdout + stderr).splitlines() if line.strip()][-1]
    assert last == f"tcprof: error: eager, aot_eager: {cause}", last
    for line in (stdout + stderr).splitlines():
        assert line.count("raises_at_step_3.py:11") <= 1, line
    assert "run 3 or more rounds" not in stdout and "not balanced" not in stdout, stdout
    compiled = arm(session, "aot_eager")["results"][0]
    assert compiled["error"]["steps_run"] == 2 and compiled["first_step_ms"] > 0
    assert compiled["compile_cold_s"] is None and compiled["compile_timer_s"] > 0
    table = {
        line.split()[0]: line
        for line in stdout.splitlines()
        if line.startswith(("eager ", "aot_eager "))
    }
    assert "error after 2 steps (first step " in table["eager"], table
    assert "error after 2 steps (first step " in table["aot_eager"], table
    timer = f"{compiled['compile_timer_s']:.2f} (torch's compile timer)"
    assert timer in table["aot_eager"], table
