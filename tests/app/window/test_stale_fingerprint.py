"""What marks the shown results stale: the model, the arms and the batch sizes as typed, read
from the setup's typed core fields (the spaces around a size change nothing)."""

from __future__ import annotations

import dataclasses

import pytest

from tcprof.app.setup.core_options import CoreFields
from tcprof.app.window.stale_results import setup_fingerprint
from tcprof.profiler.config import ArmSpec, DebugOptions, ModelSource

pytestmark = pytest.mark.timeout(30)

CORE = CoreFields(
    source=ModelSource("model.py"),
    arms=(ArmSpec("eager"), ArmSpec("inductor")),
    batch_sizes="32, 64",
    warmup=5,
    steps=50,
    optimizer="sgd",
    lr=0.01,
    seed=0,
    device="cpu",
    debug=DebugOptions(),
    save_weights=None,
    profile_steps=0,
)


def test_only_the_model_the_arms_and_the_batch_sizes_count():
    shown = setup_fingerprint(CORE)
    assert setup_fingerprint(dataclasses.replace(CORE, batch_sizes=" 32,64 ,")) == shown
    assert setup_fingerprint(dataclasses.replace(CORE, steps=9, seed=3)) == shown
    for changed in (
        dataclasses.replace(CORE, batch_sizes="32, 128"),
        dataclasses.replace(CORE, arms=(ArmSpec("eager"),)),
        dataclasses.replace(CORE, source=ModelSource("model.py", factory="make()")),
    ):
        assert setup_fingerprint(changed) != shown
