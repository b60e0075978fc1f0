"""The setup panel's values as one typed record (setup_values.py): every RunConfig field is held
by exactly one part (or carried), a script's run takes RunConfig's defaults for the fields it
cannot take, and what is saved is put back into the same values."""

from __future__ import annotations

import dataclasses

import pytest

from tcprof.app.setup.core_options import CoreFields
from tcprof.app.setup.distributed_options import DEFAULTS, DistributedFields
from tcprof.app.setup.loop_options import LoopFields
from tcprof.app.setup.measurement_options import MeasurementFields
from tcprof.app.setup.model_extras import ExtrasFields
from tcprof.app.setup.setup_panel import CARRIED_FIELDS, SetupPanel
from tcprof.app.setup.setup_values import SetupValues, at_defaults
from tcprof.profiler.config import RunConfig
from tcprof.profiler.config.examples import example_path

pytestmark = pytest.mark.timeout(60)
RECORDS = (CoreFields, MeasurementFields, LoopFields, ExtrasFields, DistributedFields)


def _names(record: type) -> list[str]:
    return [f.name for f in dataclasses.fields(record)]


def test_each_run_field_is_held_once_by_a_part_or_carried():
    held = [name for record in RECORDS for name in _names(record)]
    assert len(held) == len(set(held)), "a field held by two parts"
    typed = {f.name: f.type for f in dataclasses.fields(RunConfig)}
    others = {"host", "script", "artifacts_dir", *CARRIED_FIELDS}
    assert set(held) | others == set(typed) and not set(held) & others
    for record in RECORDS[1:]:  # the core's batch sizes are the field's text
        for f in dataclasses.fields(record):
            assert f.type == typed[f.name] or f.name == "replicates", (record, f.name)
    assert set(_names(SetupValues)) == {"core", "measurement", "loop", "extras", "host"} | {
        "distributed",
        "carried",
    }


def test_a_scripts_run_takes_run_configs_defaults_for_the_fields_it_cannot_take():
    loop = LoopFields("inference", "bf16", True, True)
    assert at_defaults(loop, {"loop", "amp", "optimizer"}) == LoopFields("train", None, True, True)
    group = dataclasses.replace(DEFAULTS, nproc=4, parallel="ddp")
    assert at_defaults(group, ["parallel"]) == dataclasses.replace(DEFAULTS, nproc=4)


@pytest.fixture
def panel(qtbot):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    panel.model.set_path(str(example_path("simple")))
    return panel


def test_the_saved_values_come_back_and_make_the_same_config(panel, qtbot):
    panel.batch_sizes.setText("8,  16")
    panel.loop.amp.setCurrentText("bf16")
    panel.extras.block_module.setText("Block")
    panel.measurement.replicates.setValue(3)
    panel.distributed.nproc.setValue(2)
    panel.distributed.parallel.setCurrentText("ddp")
    panel.carried.set_options({"blocks": 3, "sequential": True})
    values = panel.values()
    assert values.loop.amp == "bf16" and values.distributed.nproc == 2
    assert values.carried == {"blocks": 3, "sequential": True}
    again = SetupPanel(None)
    qtbot.addWidget(again)
    again.restore(panel.state(), trust_model=True)
    assert again.values() == values
    config = again.config()
    assert config == panel.config()
    assert (config.batch_sizes, config.amp, config.block_module) == ((8, 16), "bf16", "Block")
    assert (config.replicates, config.nproc, config.parallel) == (3, 2, "ddp")
    assert (config.blocks, config.sequential) == (3, True)
    # only the Distributed group's settings that differ from the defaults are saved
    assert {"nproc", "parallel"} <= set(panel.state()) and "nnodes" not in panel.state()
