"""Models that misbehave, run for real through `tcprof run`: every end is explained, nothing
hangs, no process outlives the run, and a flood of output stays bounded. Each model is a few
lines written into tmp_path; each run is one eager arm (two where another arm must go on), one
batch size and a couple of steps."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from tcprof.profiler.process.local import MAX_LINE_BYTES
from tcprof.profiler.process.log_limit import HEAD_LINES, TAIL_LINES
from tcprof.profiler.worker import lifeline
from tests.support.cli import MODELS, arm, events, fast_args, run_cli
from tests.support.live_runs import events_so_far

QUICK = fast_args(batch_sizes="2", steps=2, blocks=1, accuracy=False)
GONE_WITHIN_S = 5.0


def _model(tmp_path: Path, name: str, body: str, init: str = "") -> Path:
    """A model file: a Linear(3, 1) whose __init__ and forward also run the given lines."""
    path = tmp_path / f"{name}.py"
    path.write_text(
        textwrap.dedent(
            """\
            import ctypes, gc, os, subprocess, sys, time
            import torch.nn as nn


            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(3, 1)
            {init}

                def forward(self, x):
            {body}
                    return self.fc(x)
            """
        ).format(
            init=textwrap.indent(textwrap.dedent(init), " " * 8) if init else "",
            body=textwrap.indent(textwrap.dedent(body), " " * 8),
        )
    )
    return path


def _run(model: Path, out: Path, *extra: str, arms: str = "eager") -> tuple[int, dict]:
    rc, _, stderr, session = run_cli([str(model), "--arms", arms, *QUICK, *extra], out)
    assert session is not None, stderr
    return rc, session


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _wait_gone(pids: list[int], timeout_s: float = GONE_WITHIN_S) -> list[int]:
    """The pids still running after timeout_s (polled)."""
    deadline = time.monotonic() + timeout_s
    while True:
        alive = [pid for pid in pids if not _gone(pid)]
        if not alive or time.monotonic() > deadline:
            return alive
        try:
            psutil.Process(alive[0]).wait(0.1)
        except (psutil.TimeoutExpired, psutil.NoSuchProcess):
            continue


def _start_run(model: Path, out: Path, *extra: str) -> subprocess.Popen:
    args = [str(model), "--arms", "eager", "--steps", "100000", "--warmup", "0"]
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tcprof.profiler",
            "run",
            *args,
            "--quiet",
            "--out",
            str(out),
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(
    proc: subprocess.Popen, events_file: Path, type_: str, phase: str, timeout_s: float = 120
) -> int:
    """The worker's pid, once the run wrote an event of that type and phase."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = events_so_far(events_file)
        if any(e["type"] == type_ and e.get("phase") == phase for e in found):
            return next(e["pid"] for e in found if e["type"] == "hello")
        try:
            proc.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            continue
        pytest.fail(f"the run ended first: {proc.stderr.read() if proc.stderr else ''}")
    pytest.fail(f"no {type_} event in phase {phase}")


# -- every end is explained ---------------------------------------------------------------------
def test_a_model_that_exits_with_code_0_is_a_crash_not_a_success(tmp_path):
    model = _model(tmp_path, "quits", "os._exit(0)")
    rc, session = _run(model, tmp_path / "out")
    assert rc == 1
    error = arm(session, "eager")["error"]
    assert error["kind"] == "crash"
    assert error["message"].startswith(
        "eager: worker exited with code 0 during the first step at batch size 2 "
        "(the model ended its own process?)"
    )


def test_a_model_that_closes_the_event_channel_is_a_crash_not_a_stop(tmp_path):
    closes = """\
        from tcprof.profiler.worker.channel import EventChannel
        channel = next(o for o in gc.get_objects() if isinstance(o, EventChannel))
        os.close(channel._fd)
        time.sleep(1)  # then the worker's next event fails, and it exits
    """
    rc, session = _run(_model(tmp_path, "closes", closes), tmp_path / "out")
    assert rc == 1
    eager = arm(session, "eager")
    assert eager["error"]["kind"] == "crash"
    message = eager["error"]["message"]
    assert "worker closed its event channel during the first step at batch size 2" in message
    assert "Bad file descriptor" in message, "its last words"
    assert eager["exit"]["status"] != "stopped"


def test_a_segfault_reports_the_python_stack(tmp_path):
    model = _model(tmp_path, "segfaults", "ctypes.string_at(0)")
    rc, session = _run(model, tmp_path / "out")
    assert rc == 1
    (crash,) = [e for e in session["errors"] if e["kind"] == "crash"]
    assert "killed by SIGSEGV during the first step at batch size 2" in crash["message"]
    assert "Fatal Python error: Segmentation fault" in crash["message"]
    assert "Fatal Python error" in crash["traceback"]
    assert 'segfaults.py", line' in crash["traceback"], "the model's frame in the stack"


# -- no hangs -----------------------------------------------------------------------------------
def test_input_in_a_model_fails_at_once_with_a_clear_error(tmp_path):
    started = time.monotonic()
    rc, session = _run(_model(tmp_path, "asks", 'input("continue? ")'), tmp_path / "out")
    assert rc == 1
    error = arm(session, "eager")["error"]
    assert "the model read from stdin (input()?)" in error["message"]
    assert error["line"] is not None and error["file"].endswith("asks.py")
    assert time.monotonic() - started < 60


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_a_forward_that_sleeps_forever_stalls_and_the_other_arm_goes_on(tmp_path):
    marker = tmp_path / "the-first-model-built-sleeps"
    init = f"""\
        try:  # the first of the two arms' models to be built sleeps in its forward
            os.close(os.open({str(marker)!r}, os.O_CREAT | os.O_EXCL))
            self.sleeps = True
        except FileExistsError:
            self.sleeps = False
    """
    model = _model(tmp_path, "sleeper", "if self.sleeps:\n    time.sleep(3600)", init=init)
    out = tmp_path / "out"
    rc, session = _run(model, out, "--stall-timeout", "3", arms="eager,aot_eager")
    assert rc == 1
    (stall,) = [e for e in events(out) if e["type"] == "error" and e["kind"] == "stall"]
    assert "stalled in the first step" in stall["message"]
    assert stall["message"].endswith("(no progress for 3 s)")
    assert 'sleeper.py", line' in stall["traceback"], "where it slept, from its stacks"
    phase = next(
        e
        for e in events(out)
        if e["type"] == "phase" and e["arm"] == stall["arm"] and e["batch_size"] == 2
    )
    assert stall["t"] - phase["t"] < 10
    other = session["arms"][1 - stall["arm"]]
    assert other["error"] is None and other["results"][0]["status"] == "ok"


# -- no orphans ---------------------------------------------------------------------------------
@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_children_a_model_starts_end_with_its_worker(tmp_path):
    pids = tmp_path / "children"
    init = f"""\
        child = subprocess.Popen(["sleep", "600"])
        with open({str(pids)!r}, "a") as f:
            f.write(f"{{child.pid}}\\n")
    """
    rc, session = _run(_model(tmp_path, "spawns", "", init=init), tmp_path / "out")
    assert rc == 0, session["errors"]
    children = [int(p) for p in pids.read_text().split()]
    assert children
    assert _wait_gone(children) == []


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_a_killed_runner_takes_its_busy_worker_along(tmp_path):
    """A worker computing in silence: it never writes to the dead runner's pipe, so only its
    lifeline can end it."""
    spins = _model(tmp_path, "spins", "while True:\n    pass")
    out = tmp_path / "out"
    proc = _start_run(spins, out)
    try:
        worker = _wait_for(proc, out / "events.jsonl", "phase", "first_step")
        proc.kill()  # kill -9: the runner cannot clean up
        proc.wait(timeout=10)
        assert _wait_gone([worker]) == [], "the worker outlived its runner"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_sigterm_stops_the_run_like_ctrl_c(tmp_path):
    out = tmp_path / "out"
    proc = _start_run(MODELS / "slow.py", out)
    try:
        worker = _wait_for(proc, out / "events.jsonl", "steps", "measure")
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    session = json.loads((out / "session.json").read_text())
    assert session["status"] == "stopped"
    assert session["arms"][0]["results"][0]["steps"] > 0, "measured steps are kept"
    assert _wait_gone([worker]) == []


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_a_worker_whose_parent_is_already_gone_ends_at_once():
    env = {**os.environ, lifeline.PARENT_PID_ENV: "1"}  # not its parent: the engine went
    proc = subprocess.run(
        [sys.executable, "-m", "tcprof.profiler.worker"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        start_new_session=True,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_the_parent_watchdog_notices_an_orphan():
    orphaned: list[bool] = []
    lifeline.watch(os.getppid() + 1, lambda: orphaned.append(True), poll_s=0.01)
    assert orphaned == [True]


# -- bounded logs -------------------------------------------------------------------------------
def test_a_model_that_floods_its_output_is_cut_to_head_and_tail(tmp_path):
    flood = 'for i in range(4000):\n    print(f"flood {i}")'
    long_line = 'print("y" * 100_000)'
    out = tmp_path / "out"
    rc, session = _run(_model(tmp_path, "floods", flood, init=long_line), out)
    assert rc == 0, session["errors"]
    logged = [e for e in events(out) if e["type"] == "log" and e["stream"] == "output"]
    (long,) = [e["text"] for e in logged if e["text"].startswith("yyy")]
    assert long.endswith(f"… [{100_000 - MAX_LINE_BYTES:,} more bytes]")
    (notice,) = [e for e in logged if "dropped" in e]
    kept = [e["text"] for e in logged if "dropped" not in e]
    assert len(kept) == HEAD_LINES + TAIL_LINES and logged.index(notice) == HEAD_LINES
    flood_kept = [text for text in kept if text.startswith("flood ")]
    assert flood_kept[0] == "flood 0" and flood_kept[-1] == "flood 3999", "the head and the tail"
    assert notice["dropped"] + len(kept) >= 3 * 4000, "every line is kept or counted"
    assert f"{notice['dropped']:,} lines dropped" in notice["text"]
    assert len([e for e in session["logs"] if e["stream"] == "output"]) == len(logged)
