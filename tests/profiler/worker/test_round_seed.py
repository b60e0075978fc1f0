"""A worker builds its model and batches from the seed its `load` carries (the round's), and
waits the engine's drawn time before a block, untimed (run/draws.py)."""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.worker import quiet_room
from tcprof.profiler.worker.arm_worker import ArmWorker
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.command_stream import execute
from tcprof.profiler.worker.commands import COMMANDS
from tests.support.cli import MODELS

pytestmark = pytest.mark.timeout(60)


def _loaded(seed: int) -> tuple[ArmWorker, Any]:
    config = RunConfig(
        ModelSource(str(MODELS / "relu_model.py")),
        arms=(ArmSpec("eager"),),
        batch_sizes=(4,),
        warmup=0,
        steps=2,
        blocks=1,
        min_block_ms=0,
        threads=None,
    )
    write_fd = os.open(os.devnull, os.O_WRONLY)  # its events are not read here
    worker = ArmWorker(EventChannel(write_fd))
    worker.load({**config.to_dict(), "seed": seed}, 0)
    return worker, write_fd


def _weights(worker: ArmWorker) -> list[torch.Tensor]:
    assert worker.model is not None
    return [p.detach().clone() for p in worker.model.parameters()]


def test_the_loads_seed_sets_the_weights_and_the_batches():
    a, fd_a = _loaded(0)
    b, fd_b = _loaded(0)
    c, fd_c = _loaded(983518085)
    try:
        assert all(torch.equal(x, y) for x, y in zip(_weights(a), _weights(b), strict=True))
        assert not all(torch.equal(x, y) for x, y in zip(_weights(a), _weights(c), strict=True))
        assert a.data_seed == 0 and c.data_seed == 983518085  # the batches' seed
    finally:
        for fd in (fd_a, fd_b, fd_c):
            os.close(fd)


def test_a_measure_waits_the_drawn_time_after_the_quiet_room_and_before_the_block(monkeypatch):
    worker, fd = _loaded(0)
    calls: list[str] = []
    monkeypatch.setattr(quiet_room, "random_wait", lambda s: calls.append(f"wait {s}"))
    real_run = worker._run

    def run(bs: int, n: int, what: str, **kw: Any) -> Any:
        calls.append(what)
        return real_run(bs, n, what, **kw)

    monkeypatch.setattr(worker, "_run", run)
    try:
        execute(worker, worker.ch, {"cmd": "prepare", "batch_size": 4}, COMMANDS)
        calls.clear()
        command = {"cmd": "measure", "batch_size": 4, "steps": 2, "wait_s": 0.031}
        execute(worker, worker.ch, command, COMMANDS)
    finally:
        os.close(fd)
    assert calls[:3] == ["wait 0.031", "discard", "measure"]


def test_the_wait_sleeps_only_when_there_is_one():
    slept: list[float] = []
    quiet_room.random_wait(0.02, sleep=slept.append)
    quiet_room.random_wait(None, sleep=slept.append)
    quiet_room.random_wait(0.0, sleep=slept.append)
    assert slept == [0.02]
