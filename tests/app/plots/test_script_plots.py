"""A training script's live plots: each step's loss and the script's own time, from its steps
events, in the middle plot (its choice remembered apart for scripts and model files), and a
model file's run, whose steps carry neither, kept to throughput."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.plot_choices import MIDDLE_TITLES, middle_for

pytestmark = pytest.mark.timeout(60)


def _steps(arm, start, ms, **extra):
    return {"type": "steps", "arm": arm, "batch_size": 1, "start": start, "ms": ms, **extra}


def _config(names=("eager",)) -> SimpleNamespace:
    return SimpleNamespace(
        run_arms=[SimpleNamespace(name=name, backend=name) for name in names],
        batch_sizes=[1],
        warmup=1,
        steps=4,
        replicates=1,
        device="cpu",
        script=object(),
    )


def _script_data(names=("eager",)) -> LiveData:
    return LiveData.from_config(_config(names))


@pytest.fixture
def plots(qtbot):
    from tcprof.app.plots.live_plots import LivePlots

    widget = LivePlots()
    qtbot.addWidget(widget)
    widget.resize(900, 500)
    widget.show()
    yield widget
    widget.clear()


def test_a_scripts_steps_fill_its_loss_and_own_time_at_the_steps_times():
    data = _script_data()
    assert data.script
    data.apply(_steps(0, 1, [100.0, 100.0], loss=[2.0, None], own_ms=[5.0, 7.0], t=3.0))
    data.apply(_steps(0, 4, [50.0], loss=[1.5], own_ms=[None], t=4.0))  # after a skipped step
    x, loss = data.arms[0].loss.data()
    assert list(x[:2]) == [1.0, 2.0] and loss[0] == 2.0 and math.isnan(loss[1])
    assert np.isnan(loss[2]) and list(x[3:]) == [4.0] and loss[3] == 1.5  # the break, then 4
    assert list(data.arms[0].loss.times()[:2]) == [2.9, 3.0]
    _x, own = data.arms[0].own_ms.data()
    assert list(own[:2]) == [5.0, 7.0] and math.isnan(own[-1])
    model_run = LiveData(["eager"], [8], warmup=0, steps=3)
    model_run.apply({**_steps(0, 1, [1.0]), "batch_size": 8})
    assert not model_run.script and model_run.arms[0].loss.n == 0


def test_a_scripts_throughput_counts_the_samples_its_steps_gave_its_model_not_bs_1():
    data = _script_data()
    data.apply(_steps(0, 1, [100.0, 50.0], samples=[6, 6], tokens=[None, None], t=1.0))
    data.apply(_steps(0, 3, np.full(20, 40.0), samples=[8] * 19 + [None], t=2.0))  # numpy path
    _x, per_s = data.arms[0].throughput.data()
    assert list(per_s[:2]) == [60.0, 120.0] and per_s[2] == 200.0 and math.isnan(per_s[-1])
    assert data.work_unit == "samples"


def test_a_scripts_throughput_is_in_tokens_where_its_steps_carry_them(plots):
    """Token ids given to its model: tokens/s, the unit the reports use, in the plot's title,
    its hover readout and its clipped points' tips; `--unit` overrides."""
    data = _script_data()
    plots.start(data)
    plots.set_middle("throughput")
    data.apply(_steps(0, 1, [100.0, 50.0], samples=[6, 6], tokens=[30, 30], t=1.0))
    _x, per_s = data.arms[0].throughput.data()
    assert list(per_s) == [300.0, 600.0] and data.work_unit == "tokens"
    plots.refresh()
    assert plots.plots[1].titleLabel.text == "throughput (tokens/s)"
    assert plots.crosshair.reads()[1][0][2] == "tokens/s"
    given = LiveData.from_config(
        SimpleNamespace(**{**vars(_config()), "script": SimpleNamespace(unit="samples")})
    )
    given.apply(_steps(0, 1, [100.0], samples=[6], tokens=[30], t=1.0))
    assert given.work_unit == "samples" and list(given.arms[0].throughput.data()[1]) == [60.0]


def test_a_scripts_run_shows_its_loss_and_the_choice_is_kept_per_kind(plots, qtbot):
    data = _script_data()
    plots.start(data)
    assert plots.middle == "loss" and plots.controls.middle_key() == "loss"
    assert plots.plots[1].titleLabel.text == MIDDLE_TITLES["loss"]
    data.apply(_steps(0, 1, [10.0, 10.0, 10.0], loss=[3.0, 2.5, 2.0], own_ms=[1, 1, 1], t=1.0))

    def drawn(key):
        y = plots.arm_items.curves[0][key].getData()[1]
        return [] if y is None else list(y)

    qtbot.waitUntil(lambda: len(drawn("loss")) == 3, timeout=5000)
    assert drawn("loss") == [3.0, 2.5, 2.0]
    assert drawn("throughput") == []  # not drawn while the loss shows
    assert plots.crosshair.readout(1, 2.0) == [("eager", "loss 2.50")]
    plots.controls.middle.setCurrentIndex(plots.controls.middle.findData("own_ms"))
    assert plots.middle == "own_ms" and middle_for(script=True) == "own_ms"
    assert middle_for(script=False) == "throughput"
    model_run = LiveData(["eager"], [8], warmup=0, steps=3)
    plots.start(model_run)
    assert plots.middle == "throughput"  # a model file's steps carry no loss
    item = plots.controls.middle.model().item(plots.controls.middle.findData("loss"))
    assert not item.isEnabled() and "carry no loss" in item.toolTip()
    plots.start(_script_data())
    assert plots.middle == "own_ms"  # the script's choice, remembered


def test_the_loss_plot_says_where_the_arms_losses_agree(plots, qtbot):
    """Equal losses draw as one line (the compiled arm's over the baseline's): the title says
    they agree and within how much; a difference is said as one, and a hidden arm leaves it."""
    data = _script_data(("eager", "aot_eager", "inductor"))
    plots.start(data)
    loss = [3.0, 2.5, 2.0, 1.5]
    data.apply(_steps(0, 1, [10.0] * 4, loss=loss, t=1.0))
    data.apply(_steps(1, 1, [10.0] * 2, loss=[3.0, 2.5004], t=1.0))
    data.apply(_steps(1, 4, [10.0], loss=[1.5], t=2.0))  # step 3 skipped: not compared
    data.apply(_steps(2, 1, [10.0] * 4, loss=[3.0, 2.5, 2.9, 1.5], t=1.0))
    title = plots.plots[1].titleLabel
    qtbot.waitUntil(lambda: "agree" in title.text, timeout=5000)
    assert title.text.startswith(MIDDLE_TITLES["loss"])
    assert "eager and aot_eager agree within 0.0004" in title.text
    assert "inductor differs from eager by up to 0.9" in title.text
    plots.legend.set_shown(2, False)
    qtbot.waitUntil(lambda: "inductor" not in title.text, timeout=5000)
    plots.legend.set_shown(1, False)
    qtbot.waitUntil(lambda: title.text == MIDDLE_TITLES["loss"], timeout=5000)


def test_a_scripts_plots_count_steps_not_a_batch_size_of_1(plots):
    """A script without a sweep has no batch size (its one phase is sent as 1): the x-axis
    choice is "step", its sections are its rounds, a compile's tip and the compiling line
    name no "bs 1"; a sweep's values go by its own name; a model file's keep "batch size"."""
    from tcprof.app.plots.x_axis import LABELS, ROW, SECTION

    config = SimpleNamespace(**{**vars(_config(("eager", "inductor"))), "replicates": 2})
    data = LiveData.from_config(config)
    plots.start(data)
    items = [plots.controls.x_axis.itemText(i) for i in range(plots.controls.x_axis.count())]
    assert items[0] == "step" and not any("batch size" in t for t in items)
    assert "batch size" not in plots.controls.x_axis.toolTip()
    assert plots.plots[-1].getAxis("bottom").labelText.startswith("step (0: the first")
    plots.set_x_axis(ROW)
    assert plots.plots[-1].getAxis("bottom").labelText == "step (all rounds in a row)"
    data.apply({"type": "phase", "arm": 1, "replicate": 0, "phase": "compiling", "batch_size": 1})
    data.apply({"type": "compile", "arm": 1, "replicate": 0, "batch_size": 1, "seconds": 2.0})
    assert [w.text for w in data.waits()] == ["compiling inductor"]
    assert "bs" not in data.arms[1].markers[0].text
    assert data.section_label((1, 1)) == "round 2"
    sweep = SimpleNamespace(sweep="batch_size", unit=None)
    swept = LiveData.from_config(SimpleNamespace(**{**vars(_config()), "script": sweep}))
    plots.start(swept)
    assert plots.controls.x_axis.itemText(0) == "step in batch_size"
    assert swept.section_label((0, 8)) == "batch_size=8"
    model = LiveData(["eager"], [8], warmup=0, steps=3)
    plots.start(model)
    assert plots.controls.x_axis.itemText(0) == LABELS[SECTION] == "step in batch size"
    assert model.section_label((0, 8)) == "bs=8"
