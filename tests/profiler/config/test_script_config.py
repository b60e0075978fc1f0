"""A script run's config: placeholders and their values, what it cannot take, its JSON form."""

from __future__ import annotations

import pytest

from tcprof.profiler.config import ArmSpec, ConfigError, ModelSource, RunConfig, ScriptSource


def _config(script: ScriptSource, **fields: object) -> RunConfig:
    return RunConfig(source=ModelSource(path=script.path), script=script, **fields)  # type: ignore[arg-type]


def test_the_sweep_fills_its_placeholder_and_nothing_else():
    script = ScriptSource(
        path="/s/train.py", args=("--bs={batch_size}", '--cfg={"a":1}'), sweep="batch_size"
    )
    assert script.argv_for(16) == ["--bs=16", '--cfg={"a":1}']  # JSON braces are not placeholders
    assert script.placeholders() == ["batch_size"]
    assert script.command_text(16) == "python /s/train.py --bs=16 '--cfg={\"a\":1}'"


def test_a_placeholder_without_values_is_a_usage_error_naming_the_option():
    with pytest.raises(
        ConfigError, match=r"\{lr\} in the script's arguments has no values: give --sweep lr="
    ):
        _config(ScriptSource(path="/s/t.py", args=("--lr={lr}",)))


def test_a_sweep_with_nothing_to_fill_says_where_to_write_it():
    with pytest.raises(ConfigError, match=r"have no \{seq\} to fill"):
        _config(ScriptSource(path="/s/t.py", args=("--x=1",), sweep="seq"), batch_sizes=(8, 16))


@pytest.mark.parametrize(
    ("fields", "option"),
    [
        ({"loop": "inference"}, "--loop"),
        ({"amp": "bf16"}, "--amp"),
        (
            {"compile_optimizer": True, "arms": (ArmSpec("eager"), ArmSpec("aot_eager"))},
            "--compile-optimizer",
        ),
        ({"profile_steps": 3}, "--profile-steps"),
    ],
)
def test_options_of_the_generated_loop_are_refused_for_a_script(fields, option):
    with pytest.raises(ConfigError, match=f"{option} changes the loop tcprof writes"):
        _config(ScriptSource(path="/s/t.py"), **fields)


def test_regional_arms_need_a_model_file():
    arms = (ArmSpec("eager"), ArmSpec("aot_eager", regional=True))
    with pytest.raises(
        ConfigError, match="regional= and mark_dynamic= arm options need a model file"
    ):
        _config(ScriptSource(path="/s/t.py"), arms=arms)


def test_step_on_is_optimizer_or_forward():
    with pytest.raises(ConfigError, match="--step-on is one of optimizer, forward"):
        _config(ScriptSource(path="/s/t.py", step_on="backward"))


def test_the_config_round_trips_through_json_with_its_script():
    script = ScriptSource(
        path="/s/t.py", args=("--n={n}",), module=None, cwd="/w", sweep="n", step_on="forward"
    )
    config = _config(script, batch_sizes=(2, 4))
    again = RunConfig.from_dict(config.to_dict())
    assert again == config and again.script == script
    assert RunConfig.from_dict({**config.to_dict(), "script": None}).script is None


def test_nproc_runs_a_script_under_torchrun_and_one_process_runs_it_alone():
    config = _config(ScriptSource(path="/s/t.py"), nproc=2)
    assert config.parallel == "torchrun" and config.world_size(config.arms[0]) == 2
    assert RunConfig.from_dict(config.to_dict()) == config
    alone = RunConfig.from_dict({**config.to_dict(), "nproc": 1})  # a recorded run, one process
    assert alone.parallel == "none" and alone.world_size(alone.arms[0]) == 1


@pytest.mark.parametrize(
    "fields",
    [
        {"nproc": 2, "parallel": "ddp"},
        {"nproc": 2, "arms": (ArmSpec("eager"), ArmSpec("aot_eager", parallel="fsdp"))},
    ],
)
def test_a_script_wraps_its_own_model_so_parallel_is_refused(fields):
    with pytest.raises(ConfigError, match="a script wraps its own: give --nproc N alone"):
        _config(ScriptSource(path="/s/t.py"), **fields)


def test_several_nodes_are_not_for_scripts_yet():
    with pytest.raises(ConfigError, match="--nnodes is not supported for scripts yet"):
        _config(ScriptSource(path="/s/t.py"), nproc=2, nnodes=2, rdzv_endpoint="h:29500")


def test_torchrun_is_a_scripts_parallel_only():
    with pytest.raises(ConfigError, match="unknown parallel 'torchrun'"):
        RunConfig(source=ModelSource(path="/s/m.py"), nproc=2, parallel="torchrun")
