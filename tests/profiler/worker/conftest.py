"""Fixtures of the worker's tests."""

from __future__ import annotations

import gc

import pytest

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.worker.arm_worker import ArmWorker
from tests.support.cli import MODELS
from tests.support.script_harness import RecordingChannel


@pytest.fixture
def worker():
    """A one-arm eager worker of the relu model, prepared at batch size 8; its heap thawed after."""
    config = RunConfig(
        ModelSource(str(MODELS / "relu_model.py")),
        arms=(ArmSpec("eager"),),
        warmup=1,
        steps=4,
        min_block_ms=1.0,
        threads=None,
    )
    arm = ArmWorker(RecordingChannel())
    arm.load(config.to_dict(), 0)
    arm.prepare(8)
    yield arm
    gc.unfreeze()
    gc.enable()
