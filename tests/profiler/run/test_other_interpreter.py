"""An arm under another interpreter (`python=PATH`: another environment, another torch): its
workers are fresh processes of that interpreter, in the same interleaved rounds as any arm,
checked there before any arm runs, and the session says which interpreter and torch each arm
ran (profiler/process/local.py, profiler/run/preflight.py, profiler/session/document.py)."""

from __future__ import annotations

import dataclasses
import os

import pytest

from tcprof.profiler.config import (
    ConfigError,
    ModelSource,
    RunConfig,
    examples,
    parse_arms,
    validate,
)
from tcprof.profiler.run.recorded import REFUSED, RecordedRun
from tests.support.cli import fast_config
from tests.support.interpreters import other_python


def _config(arms: str) -> RunConfig:
    path = str(examples.example_path("simple"))
    return RunConfig(
        source=ModelSource(path),
        arms=parse_arms(arms),
        accuracy=False,
        **fast_config(batch_sizes=(8,), steps=4, blocks=1),
    )


def _refusal(config: RunConfig, out) -> str | None:
    events: list[dict] = []
    recorded = RecordedRun(config, out, listeners=[events.append])
    session = recorded.run()
    assert session.status == REFUSED
    assert [e["type"] for e in events] == ["run_start", "error", "run_end"]
    assert recorded.save().folder is None and not out.exists()
    return recorded.refusal


def test_an_arm_runs_under_its_own_interpreter_with_its_torch_recorded(tmp_path):
    """One real run (one round, one batch size, four steps): eager here against eager under a
    second environment; each arm's interpreter is the one it was given, by its own hello."""
    import torch

    python = other_python(tmp_path / "torch-b")
    config = _config(f"eager; eager:python={python}")
    recorded = RecordedRun(config, tmp_path / "out")
    live = recorded.run().to_dict()
    assert recorded.refusal is None and live["status"] == "completed"
    own, other = live["arms"]
    assert other["name"] == "eager(python=torch-b)"
    assert other["python"]["path"] == str(python)  # not the fork server's, nor this one
    assert own["python"]["path"] != str(python)
    assert other["python"]["torch"] == own["python"]["torch"] == torch.__version__
    assert set(other["python"]) == {"path", "version", "torch", "triton"}
    assert other["results"][0]["status"] == "ok"
    assert live["config"]["arms"][1]["python"] == str(python)
    assert [sorted(r["order"]) for r in live["rounds"]] == [["eager", "eager(python=torch-b)"]]


def test_a_missing_interpreter_is_refused_before_anything_runs(tmp_path):
    refusal = _refusal(_config("eager; inductor:python=/nonexistent/bin/python"), tmp_path / "o")
    assert refusal == (
        "arm 'inductor(python=nonexistent)': no interpreter at python=/nonexistent/bin/python"
    )


def test_an_interpreter_without_torch_is_refused_naming_torch(tmp_path):
    python = other_python(tmp_path / "bare", with_torch=False)
    refusal = _refusal(_config(f"eager; eager:python={python},label=bare"), tmp_path / "o")
    assert refusal == f"arm 'bare': python={python} cannot import torch (install torch there)"
    assert "\n" not in refusal


@pytest.mark.parametrize(
    ("arms", "where", "words"),
    [
        ("eager:python=py", {"host": "gpu-box"}, "on --host give --remote-python"),
        ("eager:python=py", {"parallel": "ddp"}, "a distributed arm"),
    ],
)
def test_python_is_refused_where_an_arm_is_not_one_local_process(arms, where, words):
    config = _config(arms)
    with pytest.raises(ConfigError, match=words):
        validate(dataclasses.replace(config, **where))


def test_the_path_is_made_absolute_and_a_bare_name_left_for_path(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (arm,) = parse_arms("inductor:python=envs/b/bin/python,mode=max-autotune")
    assert arm.python == os.path.join(str(tmp_path), "envs/b/bin/python")
    assert arm.name == "inductor(max-autotune, python=b)"
    assert parse_arms("eager:python=python3.12")[0].python == "python3.12"
    assert parse_arms("eager:python=~/x/bin/python")[0].python == os.path.expanduser(
        "~/x/bin/python"
    )


def test_such_a_worker_is_never_forked_and_reaches_only_tcprof(monkeypatch):
    """Even where every worker may be forked, one of another interpreter starts fresh: the fork
    server's torch is this environment's. Its path reaches tcprof alone, never this
    environment's site-packages (whose torch would stand before the interpreter's own)."""
    import queue
    import site
    import sys

    from tcprof.profiler.process.local import IMPORT_ROOT, WorkerProcess, foreign_pythonpath

    monkeypatch.setenv("TCPROF_FORK_WORKERS", "all")
    worker = WorkerProcess(0, queue.Queue(), timed=False, python=sys.executable)
    try:
        assert not worker.forked
    finally:
        worker.stop(grace_s=0.1)
    (folder,) = foreign_pythonpath(None).split(os.pathsep)
    assert os.listdir(folder) == ["tcprof"]
    assert os.path.realpath(os.path.join(folder, "tcprof")) == str(IMPORT_ROOT / "tcprof")
    assert folder not in site.getsitepackages()
