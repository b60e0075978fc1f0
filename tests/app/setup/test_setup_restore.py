"""Putting a setup back in the setup panel: every RunConfig field of a saved session reaches
the RunConfig built for Run, those without a field in the panel carried and shown, none dropped."""

from __future__ import annotations

import dataclasses

import pytest

from tcprof.app.setup.setup_panel import CARRIED_FIELDS, SetupPanel
from tcprof.profiler.config import ArmSpec, ConfigError, DebugOptions, ModelSource, RunConfig
from tcprof.profiler.config.examples import example_path
from tests.app.conftest import write_model


@pytest.fixture
def panel(qtbot):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    panel.model.set_path(str(example_path("simple")))
    assert panel.is_valid()
    return panel


def _unlike_the_defaults(model_path: str, weights: str) -> RunConfig:
    """A config in which every field (and every debug option) differs from its default, but
    the loop kind: --compile-optimizer needs a training loop (see _inference_unlike)."""
    config = RunConfig(
        source=ModelSource(model_path, model="Model", factory="Model()", input_shape="3"),
        arms=(
            ArmSpec("eager"),
            ArmSpec("aot_eager", dynamic=False, fullgraph=True, label="aot", regional=True),
        ),
        batch_sizes=(4, 8),
        warmup=2,
        steps=7,
        blocks=3,
        sequential=True,
        device="auto",
        optimizer="adam",
        lr=0.005,
        seed=7,
        replicates=12,  # the last look of 3 arms: Replicates at auto, the run stops when settled
        stop_early=True,
        precision=0.05,
        budget_s=90.0,
        control=True,
        threads=2,
        warm_cache=True,
        portable_round=True,
        min_block_ms=0.0,
        accuracy=False,
        accuracy_rtol=1e-3,
        accuracy_atol=1e-4,
        debug=DebugOptions(
            logs=("graph_breaks", "guards"),
            verbose=True,
            suppress_errors=True,
            fail_on_recompile=True,
            explain=True,
            compile_debug=True,
            trace=True,
            memory_snapshot=True,
        ),
        timeout_s=60.0,
        stall_timeout_s=45.0,
        artifacts_dir="/somewhere/the-session",
        profile_steps=2,
        save_weights="pt",
        block_module="Block",
        ladder=True,
        apply_advice=True,
        weights=weights,
        amp="bf16",
        channels_last=True,
        compile_optimizer=True,
        nproc=2,
        parallel="ddp",
        nnodes=2,
        node_rank=1,
        rdzv_endpoint="10.0.0.1:29400",
        rdzv_timeout_s=90.0,
        remote_python="/opt/venv/bin/python",
    )
    defaults = RunConfig(source=ModelSource("x.py"))
    for field in dataclasses.fields(RunConfig):
        # loop and host differ in _inference_unlike; a script's setup is never run by the
        # window (test_script_session.py)
        if field.name not in ("loop", "host", "script"):
            assert getattr(config, field.name) != getattr(defaults, field.name), field.name
    for field in dataclasses.fields(DebugOptions):
        assert getattr(config.debug, field.name) != getattr(DebugOptions(), field.name)
    return config


def _inference_unlike(model_path: str, weights: str) -> RunConfig:
    """The same with an inference loop (which has no optimizer step to compile, and no
    trained weights to save)."""
    config = _unlike_the_defaults(model_path, weights)
    config = dataclasses.replace(  # distributed arms train: an inference loop runs alone
        config,
        loop="inference",
        amp="fp16",
        compile_optimizer=False,
        save_weights=None,
        nproc=1,
        parallel="none",
        nnodes=1,
        node_rank=0,
        host="gpu-box",  # a remote host runs one node's arms
    )
    defaults = RunConfig(source=ModelSource("x.py"))
    assert config.loop != defaults.loop and config.host != defaults.host
    return config


@pytest.mark.parametrize("make", [_unlike_the_defaults, _inference_unlike])
def test_a_restored_session_config_runs_with_every_field(panel, tmp_path, make):
    path = write_model(tmp_path, "m.py", "import torch.nn as nn\nModel = lambda: nn.Linear(3, 1)\n")
    weights = tmp_path / "trained.safetensors"
    weights.write_bytes(b"")
    saved = make(path, str(weights))
    panel.restore(saved.to_dict())
    # The run's own folder is the only thing not repeated: each run gets a new one.
    expected = dataclasses.replace(saved, artifacts_dir=None)
    assert panel.config() == expected
    assert set(CARRIED_FIELDS) == {
        "blocks",
        "sequential",
        "precision",
        "min_block_ms",
        "accuracy_rtol",
        "accuracy_atol",
        "timeout_s",
        "ladder",
        "remote_python",
    }
    assert panel.carried.text() == (
        "Also from the session: blocks=3, sequential, precision=0.05, min_block_ms=0.0, "
        "accuracy_rtol=0.001, accuracy_atol=0.0001, timeout_s=60.0, ladder, "
        "remote_python=/opt/venv/bin/python."
    )
    assert panel.extras.weights.text() == str(weights)
    assert panel.extras.block_module.text() == "Block"
    assert panel.distributed.body.isVisibleTo(panel)  # the session's distributed setup shows
    # The panel's own state (saved between launches) keeps them too.
    again = SetupPanel(None)
    again.restore(panel.state())
    assert again.config() == expected


def test_clearing_the_carried_settings_runs_with_the_defaults(panel, qtbot):
    panel.restore({"blocks": 3, "sequential": True, "steps": 9})
    assert not panel.carried.isHidden()
    assert (panel.config().blocks, panel.config().sequential) == (3, True)
    panel.carried.clear_button.click()
    config = panel.config()
    assert (config.blocks, config.sequential, config.steps) == (5, False, 9)
    assert panel.carried.isHidden() and panel.carried.text() == ""
    assert "blocks" not in panel.state()


def test_restoring_a_setup_without_them_forgets_carried_settings(panel):
    panel.restore({"blocks": 3})
    panel.restore({"steps": 9})  # an older session, or one run with the defaults
    assert panel.config().blocks == 5 and panel.carried.isHidden()


def test_carried_values_of_the_wrong_type_are_skipped(panel):
    panel.restore({"blocks": "3", "sequential": 1, "timeout_s": "60", "min_block_ms": True})
    assert panel.carried.options() == {}
    assert panel.is_valid()


def test_an_invalid_carried_value_blocks_run_until_cleared(panel, qtbot):
    with qtbot.waitSignal(panel.validityChanged) as changed:
        panel.restore({"blocks": 0})
    assert changed.args == [False]
    assert "the blocks setting (carried) must be at least 1" in panel.error()
    with pytest.raises(ConfigError):
        panel.config()
    panel.carried.clear_button.click()
    assert panel.is_valid()


def test_a_number_outside_its_field_is_named_not_run_silently(panel):
    panel.restore({"lr": 1e-7, "replicates": 500, "steps": 12})
    assert panel.carried.text() == (
        "Outside the fields' range, not restored: lr=1e-07, replicates=500."
    )
    assert panel.config().steps == 12


def test_the_checkpoint_field_checks_its_file_and_runs_with_it(panel, tmp_path):
    path = write_model(tmp_path, "m.py", "import torch.nn as nn\nModel = lambda: nn.Linear(3, 1)\n")
    panel.restore({"source": {"path": path, "model": "Model"}})
    panel.extras.weights.setText(str(tmp_path / "missing.safetensors"))
    assert not panel.is_valid()
    assert "no such file" in panel.error() and "the Checkpoint field" in panel.problem.text()
    weights = tmp_path / "trained.pt"
    weights.write_bytes(b"")
    panel.extras.weights.setText(str(weights))
    panel.extras.block_module.setText("Block")
    assert panel.is_valid(), panel.error()
    config = panel.config()
    assert (config.weights, config.block_module) == (str(weights), "Block")
    panel.extras.weights.clear()
    assert panel.config().weights is None


def test_the_distributed_group_opens_for_a_distributed_setup_and_names_misfits(panel):
    assert not panel.distributed.body.isVisibleTo(panel)  # collapsed while at the defaults
    panel.restore({"nproc": 2, "parallel": "fsdp", "nnodes": 0, "rdzv_timeout_s": "soon"})
    assert panel.distributed.body.isVisibleTo(panel)
    config = panel.config()
    assert (config.nproc, config.parallel, config.nnodes, config.rdzv_timeout_s) == (
        2,
        "fsdp",
        1,
        300.0,
    )
    assert panel.carried.text() == (
        "Outside the fields' range, not restored: nnodes=0, rdzv_timeout_s=soon."
    )
    panel.distributed.nnodes.setValue(2)  # several nodes need node 0's address
    assert "the Rendezvous endpoint field" in panel.error()
    panel.distributed.endpoint.setText("10.0.0.1:29400")
    assert panel.is_valid()
