"""A session of a training script opened in the window: its script comes back in the Training
script box with its arguments, working directory and phases, never inspected or run as a model
file, and waits for the user's word before it runs (the window's test: test_script_window.py)."""

from __future__ import annotations

import pytest

from tcprof.app.setup.setup_panel import SetupPanel
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig, ScriptSource
from tcprof.profiler.config.examples import example_path


@pytest.fixture
def panel(qtbot):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    panel.model.set_path(str(example_path("simple")))
    assert panel.is_valid()
    return panel


def _script_session(tmp_path, args=("--bs={batch_size}", "--name", "a b"), sweep="batch_size"):
    marker = tmp_path / "ran.marker"
    script = tmp_path / "train.py"
    script.write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n")
    config = RunConfig(
        source=ModelSource(str(script)),
        script=ScriptSource(path=str(script), args=args, sweep=sweep, cwd=str(tmp_path)),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(8, 16),
        steps=9,
    )
    return config.to_dict()


def test_a_script_session_restores_its_script_untrusted(panel, tmp_path):
    state = _script_session(tmp_path)
    panel.restore(state)
    assert panel.script.active() and panel.script.needs_trust()
    assert panel.script.args.text() == "--bs={batch_size} --name 'a b'"
    assert panel.batch_sizes.text() == "8, 16" and panel.steps.value() == 9
    assert panel.model.current_path() == str(example_path("simple"))  # not the script
    config = panel.config()  # the same run again: the session's script, args and phases
    assert config.script == RunConfig.from_dict(state).script
    assert config.batch_sizes == (8, 16)
    assert "script" not in panel.carried.text()
    assert not (tmp_path / "ran.marker").exists()


def test_a_sweep_of_another_placeholder_comes_back_in_the_sweep_field(panel, tmp_path):
    state = _script_session(tmp_path, args=("--block={block}",), sweep="block")
    panel.restore(state)
    assert panel.script.sweep.text() == "block=8,16"
    assert panel.config().batch_sizes == (8, 16) and panel.config().script.sweep == "block"


def test_choosing_a_model_file_again_leaves_the_script(panel, tmp_path, qtbot):
    panel.restore(_script_session(tmp_path))
    panel.model.fileChosen.emit(str(example_path("cnn")))  # a file picked in the File list
    panel.model.set_path(str(example_path("cnn")))
    qtbot.waitUntil(panel.is_valid, timeout=60_000)
    assert not panel.script.active() and panel.config().script is None
    assert not (tmp_path / "ran.marker").exists()


def test_a_session_cannot_claim_its_model_file_is_trusted(panel, tmp_path):
    """A crafted session: a script, and beside it a model file it says was trusted."""
    state = _script_session(tmp_path)
    state["source"] = {"path": str(example_path("cnn"))}
    state["model_file_trusted"] = True
    panel.restore(state)
    assert panel.model.current_path() == str(example_path("cnn"))
    assert panel.model.needs_trust() and panel.script.needs_trust()
