"""The worker fork server: workers forked from it behave as spawned ones (events, exit codes,
Stop, their own process group), it is used only when a fresh worker would start in the same
state, and it takes its workers along when it dies."""

from __future__ import annotations

import os
import queue
import signal
import time

import psutil
import pytest

from tcprof.profiler.config import ModelSource
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.process import forked
from tcprof.profiler.process.forked import ForkedChild, fork_server_pid
from tcprof.profiler.process.inspection import inspect_model
from tcprof.profiler.process.local import WorkerProcess

pytestmark = pytest.mark.timeout(180)


def _events(inbox: queue.Queue, until: str, timeout_s: float = 60.0) -> list[dict]:
    seen = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            _index, event = inbox.get(timeout=0.5)
        except queue.Empty:
            continue
        seen.append(event)
        if event.get("type") == until:
            return seen
    raise AssertionError(f"no {until!r} event; saw {[e.get('type') for e in seen]}")


def test_by_default_only_untimed_workers_are_forked(monkeypatch):
    """A forked worker's steps do not time as a fresh one's (docs/benchmarks.md): timed arms
    stay fresh interpreters unless TCPROF_FORK_WORKERS=all."""
    monkeypatch.delenv(forked.FORK_ENV, raising=False)
    inbox: queue.Queue = queue.Queue()
    timed = WorkerProcess(0, inbox)
    untimed = WorkerProcess(1, inbox, timed=False)
    try:
        assert not timed.forked and psutil.Process(timed.pid).ppid() == os.getpid()
        assert untimed.forked
    finally:
        timed.stop()
        untimed.stop()
    monkeypatch.setenv(forked.FORK_ENV, "all")
    assert forked.may_fork(timed=True)
    monkeypatch.setenv(forked.FORK_ENV, "0")
    assert not forked.may_fork(timed=False)


def test_a_forked_worker_answers_and_ends_like_a_spawned_one(monkeypatch):
    monkeypatch.setenv(forked.FORK_ENV, "all")
    inbox: queue.Queue = queue.Queue()
    worker = WorkerProcess(0, inbox)
    try:
        assert worker.forked and isinstance(worker.proc, ForkedChild)
        assert psutil.Process(worker.pid).ppid() == fork_server_pid()
        assert os.getpgid(worker.pid) == worker.pid  # it leads its own group: Stop ends it all
        assert worker.send({"cmd": "environment"})
        hello = next(e for e in _events(inbox, "hello") if e["type"] == "hello")
        assert hello["torch"]  # the worker's own torch, imported by the fork server
        assert worker.send({"cmd": "exit"})
        assert worker.wait(30)
        assert worker.classify_exit() == {"status": "normal", "code": 0}
    finally:
        worker.stop()


def test_stop_and_a_signal_are_told_apart_as_for_a_spawned_worker(monkeypatch):
    monkeypatch.setenv(forked.FORK_ENV, "all")
    inbox: queue.Queue = queue.Queue()
    stopped = WorkerProcess(0, inbox)
    killed = WorkerProcess(1, inbox)
    try:
        stopped.stop(grace_s=0.5)
        assert stopped.classify_exit()["status"] == "stopped"
        os.kill(killed.pid, signal.SIGKILL)
        assert killed.wait(30)
        verdict = killed.classify_exit()
        assert verdict["status"] == "signal" and "SIGKILL" in verdict["message"]
    finally:
        stopped.stop()
        killed.stop()


def test_a_worker_with_its_own_environment_is_spawned_fresh(monkeypatch):
    """torch reads TORCH_TRACE and friends at import: such a worker must import afresh."""
    monkeypatch.setenv(forked.FORK_ENV, "all")
    inbox: queue.Queue = queue.Queue()
    own = WorkerProcess(0, inbox, extra_env={"TORCH_LOGS": "recompiles"})
    try:
        assert not own.forked and psutil.Process(own.pid).ppid() == os.getpid()
    finally:
        own.stop()
    monkeypatch.setenv(forked.FORK_ENV, "0")
    fresh = WorkerProcess(1, inbox)
    try:
        assert not fresh.forked
    finally:
        fresh.stop()


def test_a_server_of_an_environment_since_changed_is_replaced_once_idle(monkeypatch):
    """A variable set after the server started (a test's, a notebook's): the server that
    imported torch without it is ended and a new one serves, unless a worker of it lives."""
    inbox: queue.Queue = queue.Queue()
    first = WorkerProcess(0, inbox, timed=False)
    try:
        assert first.forked
        old = forked._SERVER
        assert old is not None
        monkeypatch.setenv("TCPROF_TEST_CHANGED", "1")
        beside = WorkerProcess(1, inbox, timed=False)  # the old server's worker is alive
        beside.stop()
        assert not beside.forked and forked._SERVER is old
    finally:
        first.stop()
    assert first.wait(30) and old.wait_for(first.pid, 30) is not None
    again = WorkerProcess(2, inbox, timed=False)
    try:
        assert again.forked and forked._SERVER is not old
        assert old.proc.poll() is not None, "the old server was ended"
    finally:
        again.stop()


def test_workers_die_with_their_fork_server_and_the_engine_hears_of_it():
    inbox: queue.Queue = queue.Queue()
    worker = WorkerProcess(0, inbox, timed=False)
    server = forked._SERVER
    assert server is not None and worker.forked
    try:
        os.kill(server.proc.pid, signal.SIGKILL)
        assert worker.wait(30), "the worker outlived its fork server"
        assert worker.classify_exit()["status"] == "signal"
        _gone, alive = psutil.wait_procs([psutil.Process(worker.pid)], timeout=5)
        assert not alive, "the worker outlived its fork server"
        assert fork_server_pid() is None
    finally:
        worker.stop()
        forked._SERVER = None  # the next worker starts a new fork server
        forked._FAILED = False


def test_a_model_is_inspected_by_a_forked_worker(monkeypatch):
    monkeypatch.delenv(forked.FORK_ENV, raising=False)  # the default: untimed ones are forked
    info = inspect_model(ModelSource(str(example_path("simple"))), probe=True)
    assert info.get("chosen") and not info.get("error")
    probe = info["probe"]  # what the estimate prices a model never run before with
    assert probe["ops"] > 0 and probe["pace_ms"] > 0 and 0 <= probe["load_s"] < 30
