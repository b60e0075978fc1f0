"""Ctrl+C ends the whole run (workers and their process groups) and keeps what was measured."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import psutil
import pytest

from tests.support.cli import MODELS

pytestmark = pytest.mark.serial  # timing-sensitive: Ctrl+C must end every worker within seconds


def _wait_for(predicate, proc, timeout_s):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        try:
            proc.wait(timeout=0.1)  # also notices an early exit
            return predicate()
        except subprocess.TimeoutExpired:
            continue
    return False


def _events(path):
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def test_ctrl_c_stops_everything_and_keeps_measured_steps(tmp_path):
    events_file = tmp_path / "events.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "profiler",
            "run",
            str(MODELS / "slow.py"),
            "--arms",
            "eager,dynamo_eager",
            "--steps",
            "100000",
            "--warmup",
            "0",
            "--quiet",
            "--out",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _wait_for(lambda: any(e["type"] == "steps" for e in _events(events_file)), proc, 120)
        pids = [e["pid"] for e in _events(events_file) if e["type"] == "hello"]
        assert len(pids) == 2
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    for pid in pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    session = json.loads((tmp_path / "session.json").read_text())
    assert session["status"] == "stopped"
    row = session["arms"][0]["results"][0]
    assert row["steps"] > 0 and row["median_ms"] is not None, "what was measured is kept"
    assert row["status"] == "stopped" and row["partial"] is True, "and marked partial"
    assert 0 < row["steps_measured"] < row["steps_planned"] == 100000
    assert _events(events_file)[-1]["type"] == "run_end"
