"""Each arm's torch threads: one rule (config.threads_per_process), computed once by the engine
and carried to each worker by its `load` command; the worker only applies it. On --host without
--threads the agent computes it there, from that host's cores."""

from __future__ import annotations

import io

import pytest

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig, threads_per_process
from tcprof.profiler.remote.agent import Agent, local_threads
from tcprof.profiler.run.runner import Runner
from tests.support.fake_worker import FakeWorkers


@pytest.mark.parametrize(
    ("threads", "ranks", "each"), [(4, 1, 4), (4, 2, 2), (5, 2, 2), (1, 4, 1), (3, 0, 3)]
)
def test_a_distributed_arms_ranks_share_the_runs_threads(threads, ranks, each):
    assert threads_per_process(threads, ranks) == each


def _config(**overrides) -> RunConfig:
    fields = {
        "source": ModelSource("model.py"),  # never read: the fake workers load nothing
        "arms": (ArmSpec("eager"), ArmSpec("aot_eager")),
        "batch_sizes": (8,),
        "warmup": 1,
        "steps": 2,
        "blocks": 1,
        "replicates": 1,
        "min_block_ms": 0,
        "threads": 4,
        "accuracy": False,
        "timeout_s": 10,
    }
    fields.update(overrides)
    return RunConfig(**fields)


def test_every_load_command_carries_the_arms_threads():
    fakes = FakeWorkers()
    session = Runner(_config(), worker_factory=fakes).run()
    loads = fakes.commands("load")
    assert len(loads) == 2 and {r.command["threads"] for r in loads} == {4}
    assert all(r.command["config"]["threads"] == 4 for r in loads)  # the run's, recorded
    assert session.to_dict()["config"]["threads"] == 4


def test_the_default_threads_are_resolved_once_by_the_engine():
    fakes = FakeWorkers()
    Runner(_config(threads=None), worker_factory=fakes).run()
    (threads,) = {r.command["threads"] for r in fakes.commands("load")}
    assert isinstance(threads, int) and threads >= 1
    assert {r.command["config"]["threads"] for r in fakes.commands("load")} == {threads}


def test_a_distributed_arms_load_command_carries_each_ranks_share():
    fakes = FakeWorkers()
    config = _config(arms=(ArmSpec("eager"),), parallel="ddp", nproc=2)
    Runner(config, worker_factory=fakes).run()
    (load,) = fakes.commands("load")
    assert load.command["threads"] == 2 and load.command["config"]["threads"] == 4


def _agent(tmp_path, monkeypatch, spec: dict) -> Agent:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # the agent's folder
    agent = Agent(io.BytesIO(), io.BytesIO())
    # as _start sets them, without starting a worker
    agent._nproc = spec.get("nproc") or 0
    agent._threads = spec.get("threads")
    return agent


@pytest.mark.parametrize("nproc", [0, 2])
def test_on_a_host_without_threads_the_agent_resolves_that_hosts_cores(
    tmp_path, monkeypatch, nproc
):
    agent = _agent(tmp_path, monkeypatch, {"nproc": nproc, "threads": None})
    config = _config(threads=None).to_dict()
    command = agent._command({"cmd": "load", "config": config, "arm_index": 0, "threads": None})
    assert command["threads"] == threads_per_process(local_threads(), nproc or 1)
    assert command["config"]["threads"] is None  # what the engine records: untouched


def test_on_a_host_the_engines_threads_are_kept(tmp_path, monkeypatch):
    agent = _agent(tmp_path, monkeypatch, {"nproc": 2, "threads": 3})
    config = _config(threads=6).to_dict()
    command = agent._command({"cmd": "load", "config": config, "arm_index": 0, "threads": 3})
    assert command["threads"] == 3 and agent._threads_here() == 3
