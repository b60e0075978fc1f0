"""The Training script box: the run it builds is the one `tcprof run [options] -- python
SCRIPT ARGS` builds, the fields a script cannot take are disabled with the reason, the setup
(and a session's) comes back, and its mistakes are named in the window's terms."""

from __future__ import annotations

import pytest

from tcprof.app.setup.script_mode import OWN_REASONS, reason
from tcprof.app.setup.setup_panel import BATCH_SIZES_TIP, SetupPanel
from tcprof.profiler.cli.main import build_parser
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.config.script import NOT_FOR_SCRIPTS
from tcprof.profiler.recording.options import config_from_options
from tcprof.profiler.recording.script_args import split_command


@pytest.fixture
def panel(qtbot):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    panel.model.set_path(str(example_path("simple")))
    assert panel.is_valid()
    return panel


@pytest.fixture
def project(tmp_path):
    (tmp_path / "train.py").write_text("raise SystemExit('never run by the window')\n")
    (tmp_path / "data").mkdir()
    return tmp_path


def _cli_config(argv, command, cwd, monkeypatch):
    monkeypatch.chdir(cwd)
    own, script = split_command(["run", *argv, "--", *command])
    args = build_parser().parse_args(own)
    args.script_command = script
    return config_from_options(vars(args))


@pytest.mark.parametrize(
    ("args", "batch_sizes", "sweep", "cli"),
    [
        ("--max_iters 20 --out 'my dir'", "32, 64", "", []),
        ("--batch_size={batch_size} -q", "8, 16", "", ["--batch-sizes", "8,16"]),
        ("--block={block}", "32, 64", "block=64,128", ["--sweep", "block=64,128"]),
    ],
)
def test_the_window_builds_the_run_the_command_line_builds(
    panel, project, monkeypatch, args, batch_sizes, sweep, cli
):
    panel.script.set_script(str(project / "train.py"), {"args": args, "cwd": str(project)})
    panel.script.sweep.setText(sweep)
    panel.script.step_on.setCurrentText("forward")
    panel.batch_sizes.setText(batch_sizes)
    panel.arms.set_arms([ArmSpec("eager"), ArmSpec("aot_eager")])
    panel.steps.setValue(7)
    mine = panel.config()
    theirs = _cli_config(
        ["--arms", "eager,aot_eager", "--steps", "7", "--step-on", "forward", *cli],
        ["python", "train.py", *__import__("shlex").split(args)],
        project,
        monkeypatch,
    )
    assert mine.script == theirs.script
    assert mine.batch_sizes == theirs.batch_sizes and mine.source == theirs.source
    assert mine.script.cwd == str(project) and mine.steps == 7


def test_the_fields_a_script_cannot_take_are_disabled_saying_why(panel, project):
    panel.loop.amp.setCurrentIndex(1)  # a model file's choice, kept for it
    amp = panel.loop.amp.currentText()
    tips = {w: w.toolTip() for ws in panel.script_mode.fields.values() for w in ws}
    panel.script.set_script(str(project / "train.py"))
    assert panel.is_valid(), panel.error()
    assert set(panel.script_mode.fields) == {*NOT_FOR_SCRIPTS, *OWN_REASONS}
    for field, widgets in panel.script_mode.fields.items():
        for widget in widgets:
            assert not widget.isEnabled(), field
            assert widget.toolTip() == reason(field) and widget.toolTip().startswith(
                "Not for a script"
            )
    assert "the Mixed precision field" in panel.loop.amp.toolTip()
    config = panel.config()
    assert config.amp is None and config.script is not None  # the disabled field: the default
    assert not panel.batch_sizes.isEnabled() and panel.batch_sizes.toolTip() == BATCH_SIZES_TIP
    assert config.batch_sizes == (1,)
    panel.script.args.setText("--bs={batch_size}")
    assert panel.batch_sizes.isEnabled()
    panel.script.use_model.click()
    assert not panel.script.active() and panel.model.isVisible() is panel.isVisible()
    for widget, tip in tips.items():
        assert widget.isEnabled() and widget.toolTip() == tip
    assert panel.loop.amp.currentText() == amp and panel.config().amp is not None


@pytest.mark.parametrize(
    ("args", "cwd", "sweep", "says"),
    [
        ("--name 'unclosed", None, "", "the Arguments field does not split as a shell would"),
        ("", "/no/such/folder", "", "the working directory /no/such/folder is not a folder"),
        ("--n={n}", None, "", "give n=1,2,4 in the Sweep field"),
        ("--lr=1", None, "lr=", "the Sweep field is NAME=V1,V2"),
    ],
)
def test_a_script_that_cannot_run_says_why_in_the_windows_terms(
    panel, project, args, cwd, sweep, says
):
    panel.script.set_script(str(project / "train.py"), {"args": args, "cwd": cwd or str(project)})
    panel.script.sweep.setText(sweep)
    assert not panel.is_valid()
    assert says in panel.error()
    assert panel.problem.text() == panel.error() and "--" not in panel.error().split(":")[0]


def test_the_panels_own_state_brings_the_script_back_trusted(panel, project, qtbot):
    panel.script.set_script(str(project / "train.py"), {"args": "--x 1", "cwd": str(project)})
    state = panel.state()
    other = SetupPanel(None)
    qtbot.addWidget(other)
    other.restore(state, trust_model=True)
    assert other.script.active() and other.script.trusted
    assert other.script.state() == panel.script.state()
    assert other.model.current_path() == str(example_path("simple"))  # the model, kept apart
    other.restore({"arms": [{"backend": "eager"}]})
    assert not other.script.active()  # a setup without a script shows the model file


def test_processes_per_node_runs_the_script_under_torchrun_as_nproc_does(
    panel, project, monkeypatch
):
    panel.script.set_script(str(project / "train.py"), {"cwd": str(project)})
    panel.distributed.nproc.setValue(2)
    assert not panel.distributed.parallel.isEnabled()  # a script wraps its own model
    assert panel.distributed.parallel.toolTip() == reason("parallel")
    mine = panel.config()
    theirs = _cli_config(["--nproc", "2"], ["python", "train.py"], project, monkeypatch)
    assert (mine.nproc, mine.parallel) == (theirs.nproc, theirs.parallel) == (2, "torchrun")
    state = panel.state()
    again = SetupPanel(None)
    again.restore(mine.to_dict())  # a session's: parallel=torchrun is no field's value
    assert again.distributed.nproc.value() == 2 and again.carried.text() == ""
    assert again.config().parallel == "torchrun" and state["script"]["path"].endswith("train.py")
    again.deleteLater()
