"""An arm keeps the CPU check of its first round (the cold one), unless a later round's process
ran it first on the machine: later rounds' `loaded` events otherwise replace the model's."""

from __future__ import annotations

import pytest

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.session.fold import SessionFold

pytestmark = pytest.mark.timeout(30)


def _arm_model(*checks: dict | None) -> dict:
    s = SessionFold()
    config = RunConfig(source=ModelSource(path="model.py"), arms=(ArmSpec("inductor"),))
    s.apply({"type": "run_start", "config": config.to_dict(), "wall_time": 0.0})
    for replicate, check in enumerate(checks):
        extra = {"cpu_check": check} if check is not None else {}
        s.apply({"type": "loaded", "arm": 0, "replicate": replicate, "model": "Net()", **extra})
    model = s.arms[0].model
    assert model is not None
    return model


def test_the_first_rounds_check_is_kept():
    cold = {"seconds": 9.0, "built": True, "first_s": 9.0}
    later = {"seconds": 0.4, "built": False, "first_s": 9.0}
    assert _arm_model(cold, later, later)["cpu_check"] == cold
    assert _arm_model(None, later)["cpu_check"] == later


def test_a_later_round_that_built_it_wins():
    done = {"seconds": 0.4, "built": False, "first_s": 9.0}
    built = {"seconds": 9.0, "built": True, "first_s": 9.0}
    assert _arm_model(done, built)["cpu_check"] == built
