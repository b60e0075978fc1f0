"""The setup panel's Loop box: its widgets make the RunConfig's loop fields, nonsense is shown
and blocks Run, and a restored session puts them back."""

from __future__ import annotations

import pytest

from tcprof.app.setup.loop_options import AMP_OFF, LoopFields
from tcprof.app.setup.setup_panel import CARRIED_FIELDS, SetupPanel
from tcprof.profiler.config.examples import example_path


@pytest.fixture
def panel(qtbot):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    panel.model.set_path(str(example_path("cnn")))
    assert panel.is_valid()
    return panel


def test_the_box_sets_the_loop_fields(panel):
    config = panel.config()
    assert (config.loop, config.amp, config.channels_last, config.compile_optimizer) == (
        "train",
        None,
        False,
        False,
    )
    panel.loop.amp.setCurrentText("bf16")
    panel.loop.channels_last.setChecked(True)
    panel.loop.compile_optimizer.setChecked(True)
    config = panel.config()
    assert (config.loop, config.amp, config.channels_last, config.compile_optimizer) == (
        "train",
        "bf16",
        True,
        True,
    )
    assert not {"loop", "amp", "channels_last", "compile_optimizer"} & set(CARRIED_FIELDS)


def test_a_compiled_optimizer_in_an_inference_loop_blocks_run(panel, qtbot):
    panel.loop.compile_optimizer.setChecked(True)
    with qtbot.waitSignal(panel.validityChanged) as changed:
        panel.loop.loop.setCurrentText("inference")
    assert changed.args == [False]
    assert "an inference loop has none" in panel.error()
    assert panel.problem.isVisibleTo(panel)
    with qtbot.waitSignal(panel.validityChanged) as changed:
        panel.loop.compile_optimizer.setChecked(False)
    assert changed.args == [True]
    assert panel.config().loop == "inference"


def test_a_restored_session_puts_the_loop_back_and_an_older_one_resets_it(panel):
    panel.loop.loop.setCurrentText("inference")
    panel.loop.amp.setCurrentText("fp16")
    panel.loop.channels_last.setChecked(True)
    saved = panel.config().to_dict()
    again = SetupPanel(None)
    again.restore(saved)
    assert again.loop.options() == LoopFields("inference", "fp16", True, False)
    again.restore(panel.state())  # the panel's own saved state too
    assert again.loop.options().amp == "fp16"
    older = {k: v for k, v in saved.items() if k not in ("loop", "amp", "channels_last")}
    again.restore(older)  # a session from before loop kinds ran fp32 training
    assert again.loop.options().loop == "train"
    assert again.loop.amp.currentText() == AMP_OFF
    again.restore(saved)
    again.restore({**saved, "amp": "fp8", "channels_last": "yes"})  # malformed: skipped
    assert again.loop.options().amp == "fp16" and again.loop.channels_last.isChecked()
    again.deleteLater()


def test_every_loop_widget_names_its_pytorch_api(panel):
    tips = {
        "loop": "torch.inference_mode()",
        "amp": "torch.autocast",
        "channels_last": "torch.channels_last",
        "compile_optimizer": "@torch.compile(fullgraph=False)",
    }
    for name, api in tips.items():
        assert api in getattr(panel.loop, name).toolTip(), name


def test_the_steps_field_says_a_process_may_measure_more_steps_than_asked(panel):
    from tcprof.profiler.config import MIN_BLOCK_MS, RunConfig

    tip = panel.steps.toolTip()
    assert tip == panel.core.steps.toolTip() and "RunConfig.steps" in tip
    assert "min_block_ms" in tip and f"{MIN_BLOCK_MS:g} ms" in tip
    assert RunConfig.min_block_ms == MIN_BLOCK_MS, "the default the tooltip names"
    assert "may measure more steps" in tip.replace("\n", " ")
    assert "actually measured" in tip and "reports" in tip
