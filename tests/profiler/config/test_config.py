from __future__ import annotations

import pytest

from tcprof.profiler.config import (
    ArmSpec,
    ConfigError,
    InputShape,
    ModelSource,
    RunConfig,
    parse_arms,
    parse_batch_sizes,
    parse_input_shape,
)


def test_arms_shorthand_is_a_backend_list_with_the_baseline_first():
    arms = parse_arms("eager,inductor,aot_eager")
    assert [a.backend for a in arms] == ["eager", "inductor", "aot_eager"]
    assert not arms[0].compiled and arms[1].compiled
    assert arms[1].name == "inductor"


def test_arms_long_form_carries_per_arm_options():
    arms = parse_arms(
        "eager; inductor:mode=max-autotune,dynamic=false; aot_eager:fullgraph=true,label=aot"
    )
    assert arms[1] == ArmSpec("inductor", mode="max-autotune", dynamic=False)
    assert arms[1].name == "inductor(max-autotune, dynamic=False)"
    assert arms[2].fullgraph and arms[2].name == "aot"
    assert parse_arms("eager,inductor:dynamic=none,fullgraph=true")[1] == ArmSpec(
        "inductor", dynamic=None, fullgraph=True
    )


def test_dynamo_eager_means_torch_compile_with_the_eager_backend():
    arm = parse_arms("dynamo_eager")[0]
    assert arm.compiled and arm.torch_backend == "eager"
    assert not ArmSpec("eager").compiled


@pytest.mark.parametrize(
    "text, needle",
    [
        ("", "at least one arm"),
        ("inductor:speed=1", "unknown option"),
        ("inductor:dynamic=maybe", "not true, false or none"),
        ("in ductor", "not a backend"),
    ],
)
def test_bad_arms(text, needle):
    with pytest.raises(ConfigError, match=needle):
        parse_arms(text)


def test_batch_sizes():
    assert parse_batch_sizes("32, 64,128") == (32, 64, 128)
    for bad, needle in [
        ("", "at least one"),
        ("8,-1", "positive"),
        ("8,8", "twice"),
        ("1.5", "positive"),
    ]:
        with pytest.raises(ConfigError, match=needle):
            parse_batch_sizes(bad)


def test_input_shapes():
    assert parse_input_shape("10") == InputShape((10,))
    assert parse_input_shape("3x64x64") == InputShape((3, 64, 64))
    assert parse_input_shape("int:128") == InputShape((128,), integer=True)
    assert parse_input_shape("int:128:50257") == InputShape((128,), True, 50257)
    assert parse_input_shape("int:128:50257").describe() == "int:128:50257"
    with pytest.raises(ConfigError):
        parse_input_shape("0x3")


def test_run_config_round_trips_through_json_form():
    cfg = RunConfig(
        ModelSource("m.py", factory="M(3)"),
        arms=parse_arms("eager,inductor:dynamic=false"),
        batch_sizes=(8, 16),
    )
    assert RunConfig.from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"arms": ()}, "at least one arm"),
        ({"arms": (ArmSpec("eager"), ArmSpec("eager"))}, "distinct"),
        ({"arms": (ArmSpec("aot_eager", mode="max-autotune"),)}, "only applies"),
        ({"arms": (ArmSpec("eager", dynamic=True),)}, "eager arm takes no compile options"),
        ({"batch_sizes": ()}, "batch size"),
        ({"device": "tpu"}, "unknown device"),
        ({"optimizer": "lion"}, "unknown optimizer"),
        ({"lr": 0}, "learning rate"),
        ({"warmup": -1}, "warmup"),
    ],
)
def test_run_config_validation(kwargs, needle):
    with pytest.raises(ConfigError, match=needle):
        RunConfig(ModelSource("m.py"), **kwargs)
