"""The run's options and what an arm loaded, typed (model/options.py, model/loaded.py): read
tolerantly from session.json's dict, an old session's missing keys as None or the default."""

from __future__ import annotations

import dataclasses

from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model import session as model_session
from tcprof.profiler.model.options import RunOptions
from tcprof.profiler.model.session import SessionModel
from tests.support.synthetic import synthetic_session


def test_the_options_a_session_ran_with_are_typed():
    data = synthetic_session()
    data["config"].update(
        lr=0.05, amp="bf16", host="gpu-box", debug={"logs": ["recompiles"], "verbose": True}
    )
    options = SessionModel.from_json(data).options
    assert options.lr == 0.05 and options.amp == "bf16" and options.host == "gpu-box"
    assert options.debug.logs == ("recompiles",) and options.debug.verbose
    assert not options.debug.fail_on_recompile
    assert options.batch_sizes == tuple(data["config"]["batch_sizes"])
    assert options.source.path == data["config"]["source"]["path"]
    assert options.script is None and options.accuracy


def test_a_session_without_options_reads_as_none_and_defaults():
    options = SessionModel.from_json({"arms": []}).options
    assert options.source.path is None and options.warmup is None and options.batch_sizes == ()
    assert options.accuracy and not options.channels_last and options.debug.logs == ()


def test_what_an_arm_loaded_is_typed_with_its_wrapping():
    data = synthetic_session()
    data["arms"][1]["model"] = {
        "model": "Net()",
        "input": "(B, 10) float",
        "params": 1234,
        "regional": {"where": "layers", "class": "Block"},
        "parallel": {"parallel": "fsdp", "world_size": 4, "sharded_blocks": {"where": "layers"}},
    }
    loaded = SessionModel.from_json(data).arms[1].loaded
    assert loaded is not None and loaded.model == "Net()" and loaded.input == "(B, 10) float"
    assert loaded.params == 1234
    assert loaded.regional is not None and loaded.regional.where == "layers"
    assert loaded.regional.block_class == "Block"
    assert loaded.parallel is not None and loaded.parallel.kind == "fsdp"
    assert loaded.parallel.world_size == 4 and loaded.parallel.sharded_where == "layers"
    data["arms"][1].pop("model")
    assert SessionModel.from_json(data).arms[1].loaded is None


def test_config_has_one_typed_reading():
    """`config` is typed once (RunOptions): no second record of its warm-up, steps, rounds,
    device or script beside it (issue 40: one declaration of each thing)."""
    names = [f.name for f in dataclasses.fields(SessionModel)]
    assert not hasattr(model_session, "Plan") and "plan" not in names
    assert [f.name for f in dataclasses.fields(SessionModel) if f.type == "RunOptions"] == [
        "options"
    ]


def test_a_scripts_run_reads_as_its_script_source_tolerantly():
    config = {
        "warmup": 2.0,  # a count written by hand as a float
        "steps": 5,
        "replicates": 3,
        "script": {"path": "/t/train.py", "args": ["--bs={batch_size}"], "sweep": "batch_size"},
    }
    options = RunOptions.of(config)
    assert (options.warmup, options.steps, options.replicates) == (2, 5, 3)
    assert options.script == ScriptSource(
        path="/t/train.py", args=("--bs={batch_size}",), sweep="batch_size"
    )
    assert options.script.command_text(8) == "python /t/train.py --bs=8"
    odd = RunOptions.of({"script": {"cwd": None, "step_on": 3, "python": ["py"], "args": None}})
    assert odd.script == ScriptSource(path=""), "a wrong type reads as the option's default"
    assert RunOptions.of({"script": {}}).script is None and RunOptions.of(None).script is None


def test_an_arms_model_and_its_cudagraph_skips_are_each_read_once():
    """`arms[].model` is read by Loaded alone (its CPU check included) and
    `arms[].cudagraph_skips` by CudagraphSkip alone; the arm's conveniences derive from them."""
    data = synthetic_session()
    data["arms"][1]["model"] = {"cpu_check": {"first_s": 9.8, "seconds": 0.2, "built": True}}
    data["arms"][1]["cudagraph_skips"] = [{"batch_size": 8, "reason": "cpu"}, {"reason": "x"}]
    arm = SessionModel.from_json(data).arms[1]
    fields = {f.name for f in dataclasses.fields(arm)}
    assert "cpu_check" not in fields and "cudagraph_skipped" not in fields
    assert arm.loaded is not None and arm.loaded.model is None
    assert arm.loaded.cpu_check is not None and arm.loaded.cpu_check.first_s == 9.8
    assert arm.cpu_check is arm.loaded.cpu_check and arm.cpu_check.built
    assert arm.cudagraph_skipped == (8,) and len(arm.cudagraph_skips) == 2
    data["arms"][1].pop("model")
    assert SessionModel.from_json(data).arms[1].cpu_check is None
