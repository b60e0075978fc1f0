"""The team store's tests: runs made with the scripted fake worker (no torch, about a second)
through the real `tcprof` command, logged to the pass's one shared `mlflow server`, each test in
an experiment of its own; two users are two TCPROF_HOME folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcprof.profiler.recording import entry
from tcprof.profiler.run.runner import Runner
from tests.support.cli import cli_in_process, fast_args
from tests.support.fake_worker import ArmScript, FakeWorkers
from tests.support.mlflow_server import experiment

SIMPLE = ["--example", "simple", "--arms", "eager,aot_eager", *fast_args(batch_sizes="8")]


def fake_runner(scripts: dict[int, ArmScript] | None = None):
    def make(config, listeners):
        return Runner(config, listeners, worker_factory=FakeWorkers(scripts))

    return make


@pytest.fixture
def fake_runs(monkeypatch):
    """`tcprof run` with the scripted fake worker (compiled arm at 5 ms, eager at 10 ms)."""
    monkeypatch.setattr(
        entry, "default_runner", fake_runner({0: ArmScript(10.0), 1: ArmScript(5.0)})
    )


@pytest.fixture
def store(mlflow_server, monkeypatch) -> str:
    """The shared server, ready, with an experiment of this test's own."""
    monkeypatch.setenv("MLFLOW_EXPERIMENT_NAME", experiment())
    monkeypatch.delenv("TCPROF_STORE", raising=False)
    mlflow_server.wait_ready()
    return mlflow_server.uri


def as_user(home: Path, monkeypatch) -> None:
    """This process is now the user whose TCPROF_HOME is `home`."""
    monkeypatch.setenv("TCPROF_HOME", str(home))


def tcprof(*argv: str, cwd: Path | None = None) -> tuple[int, str, str]:
    return cli_in_process(list(argv), cwd=cwd)
