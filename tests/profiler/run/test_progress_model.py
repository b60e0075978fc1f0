"""How far a run has got, from its events alone, with an injected clock."""

from __future__ import annotations

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.run.progress_model import ProgressModel


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _model(clock: Clock, replicates: int = 1) -> ProgressModel:
    config = RunConfig(
        ModelSource("m.py"),
        arms=(ArmSpec("eager"), ArmSpec("inductor")),
        batch_sizes=(8, 16),
        steps=10,
        blocks=3,
        replicates=replicates,
    )
    return ProgressModel(["eager", "inductor"], config, clock=clock)


def test_progress_counts_first_steps_and_blocks_of_every_arm_size_and_round():
    model = _model(Clock(), replicates=2)
    assert model.total == 2 * 2 * (3 + 1) * 2
    assert model.fraction == 0.0
    for _ in range(8):
        model.apply({"type": "first_step", "arm": 0, "replicate": 0, "batch_size": 8})
    for _ in range(8):
        model.apply({"type": "block_done", "arm": 1, "replicate": 0, "batch_size": 8})
    model.apply({"type": "steps", "arm": 1, "replicate": 0, "batch_size": 8, "ms": [1.0]})
    assert model.done == 16 and model.fraction == 0.5
    for _ in range(40):
        model.apply({"type": "block_done", "arm": 1, "replicate": 1, "batch_size": 16})
    assert model.fraction == 1.0, "a block more than planned never passes 100%"


def test_blocks_never_fewer_than_one_nor_more_than_steps():
    config = RunConfig(
        ModelSource("m.py"),
        arms=(ArmSpec("eager"),),
        batch_sizes=(8,),
        steps=2,
        blocks=5,
        replicates=1,
    )
    assert ProgressModel(["eager"], config).total == 1 * 1 * (2 + 1) * 1


def test_each_arm_keeps_its_phase_and_when_it_began():
    clock = Clock()
    model = _model(clock, replicates=3)
    assert model.where() == "starting workers"
    model.apply({"type": "round_start", "replicate": 1, "cache": "warm"})
    model.apply({"type": "phase", "arm": 1, "phase": "compiling", "batch_size": 16})
    clock.now += 12.5
    model.apply({"type": "phase", "arm": 0, "phase": "loading", "batch_size": None})
    clock.now += 0.5
    assert model.where() == "round 2/3 · eager · loading model"
    assert model.phase_elapsed_s() == 0.5
    assert model.phase_elapsed_s(1) == 13.0, "inductor has been compiling for 13 s"
    assert model.arms[1].phase == "compiling" and model.arms[1].batch_size == 16
    assert model.run_elapsed_s() == 13.0


def test_only_progress_events_change_the_line():
    model = _model(Clock())
    assert model.apply({"type": "phase", "arm": 0, "phase": "warmup", "batch_size": 8})
    assert not model.apply({"type": "steps", "arm": 0, "batch_size": 8, "ms": [1.0]})
    assert not model.apply({"type": "phase", "arm": 7, "phase": "idle"}), "no such arm"
    assert model.current == 0
    assert model.where() == "eager · bs 8 · warm-up"
