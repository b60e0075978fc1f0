"""The one way a handle ends its process (`OwnProcess.end_group`), on real child processes: one
that ends on SIGTERM, one that ignores it (killed after the grace), and a group whose leader
ends while a child that ignores SIGTERM lives on (killed too)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psutil
import pytest

from tcprof.profiler.process.handle import OwnProcess

# Each child says it is ready (its handler set, its own child started) before it is ended.
IGNORES_TERM = "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN)"
SLEEPS = "import time; print('ready', flush=True); time.sleep(120)"
LEAVES_A_CHILD = (
    "import subprocess, sys, time; "
    f"c = subprocess.Popen([sys.executable, '-c', {IGNORES_TERM + '; ' + SLEEPS!r}], "
    "stdout=subprocess.PIPE); c.stdout.readline(); "
    "print(c.pid, flush=True); time.sleep(120)"
)


class _Child(OwnProcess):
    """A child process in its own group, as the handles start theirs."""

    def __init__(self, code: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, start_new_session=True
        )
        self.pid = self.proc.pid
        self.first_line = self.proc.stdout.readline().strip() if self.proc.stdout else ""

    def ended_in(self, grace_s: float) -> float:
        start = time.monotonic()
        self.end_group(grace_s)
        return time.monotonic() - start


def _gone(pid: int, timeout_s: float = 5.0) -> bool:
    """The process has ended (a zombie left to its new parent counts as ended)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.02)
    return False


@pytest.fixture
def children():
    made: list[_Child] = []
    yield lambda code: made.append(_Child(code)) or made[-1]
    for child in made:  # whatever a failing test left
        child.signal_group(signal.SIGKILL)
        child.proc.wait(timeout=5)


def test_a_process_that_ends_on_sigterm_is_not_kept_for_the_grace(children):
    child = children(SLEEPS)
    assert child.first_line == "ready"
    assert child.ended_in(grace_s=30.0) < 10.0
    assert child.proc.returncode == -signal.SIGTERM


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace(children):
    child = children(IGNORES_TERM + "; " + SLEEPS)
    assert child.first_line == "ready"
    assert child.ended_in(grace_s=0.5) >= 0.5
    assert child.proc.returncode == -signal.SIGKILL


def test_what_the_group_started_goes_with_it(children):
    leader = children(LEAVES_A_CHILD)
    below = int(leader.first_line)
    leader.ended_in(grace_s=5.0)
    assert leader.proc.returncode == -signal.SIGTERM  # the leader went at once
    assert _gone(below)  # its child, which ignores SIGTERM, by the last SIGKILL
