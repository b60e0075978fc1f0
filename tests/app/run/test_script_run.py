"""A training script run from the window for real (eager against aot_eager, two rounds, a few
steps): its loss reaches the live plot, what was compiled and where is shown in the results,
each step's compute and own time are in the Your script tab; and a script that raises before
its first step says so in the banner in the window's terms."""

from __future__ import annotations

import shutil

import pytest

from tcprof.profiler.config import ArmSpec
from tests.app.conftest import FAST_RUN_TIMEOUT_MS
from tests.support.paths import ROOT

SCRIPTS = ROOT / "tests" / "support" / "scripts"


def _configure(window, path, args: str) -> None:
    assert window.scripts.open_script(str(path))
    window.setup.script.args.setText(args)
    window.setup.arms.set_arms([ArmSpec("eager"), ArmSpec("aot_eager")])
    window.setup.measurement.accuracy.setChecked(False)
    window.setup.measurement.replicates.setValue(2)
    window.setup.warmup.setValue(1)
    window.setup.steps.setValue(4)
    assert window.setup.is_valid(), window.setup.error()


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_script_run_from_the_window_plots_its_loss_and_says_what_it_compiled(
    make_window, qtbot, tmp_path, private_home
):
    script = shutil.copy(SCRIPTS / "relu_net.py", tmp_path / "train.py")
    window = make_window(background=False)
    _configure(window, script, "--steps 400")
    with qtbot.waitSignal(window.controller.runEnded, timeout=FAST_RUN_TIMEOUT_MS) as ended:
        window.commands.run.trigger()
        plots = window.plots
        assert plots is not None and plots.middle == "loss"
        assert plots.plots[1].titleLabel.text.startswith("loss")
    assert ended.args == ["completed"], window.banner.text()
    losses = [arm.loss.data()[1] for arm in window.controller.data.arms]
    assert all(len(y) >= 6 for y in losses) and all((y[y == y] > 0).all() for y in losses)
    drawn = plots.arm_items.curves[1]["loss"].getData()[1]  # aot_eager's loss, on the middle plot
    assert drawn is not None and len(drawn) > 0
    note = window.results.script_note.text()
    assert "aot_eager: `model`, Net (train.py:10), compiled in place with backend=aot_eager" in (
        note
    ), note
    assert "SGD at train.py:24" not in note  # the model itself: in the Your script tab
    tab = window.results.script
    assert window.results.isTabVisible(window.results.indexOf(tab))
    assert "train.py --steps 400" in tab.command.text()
    assert "compiled in place" in tab.notes.text() and "SGD at train.py:24" in tab.notes.text()
    header = [tab.split.horizontalHeaderItem(c).text() for c in range(tab.split.columnCount())]
    own = header.index("own ms")
    rows = [[tab.split.item(r, c).text() for c in range(len(header))] for r in range(2)]
    assert [r[0] for r in rows] == ["eager", "aot_eager"]
    assert all(float(r[own]) >= 0 for r in rows)
    assert window.results.rows()[1][0] == "aot_eager"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_script_that_raises_before_its_first_step_says_so_in_the_banner(
    make_window, qtbot, tmp_path, private_home
):
    script = shutil.copy(SCRIPTS / "broken" / "raises_early.py", tmp_path / "train.py")
    window = make_window(background=False)
    _configure(window, script, "")
    window.setup.arms.set_arms([ArmSpec("eager")])
    window.setup.measurement.replicates.setValue(1)
    with qtbot.waitSignal(window.controller.runEnded, timeout=FAST_RUN_TIMEOUT_MS):
        window.commands.run.trigger()
    text = window.banner.text()
    assert "the script raised before its first optimizer step" in text, text
    assert "the data folder is missing" in text and "--" not in text
