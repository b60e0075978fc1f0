"""A session of a training script opened in the window: its setup is shown, its script is
never inspected or run as a model file, and Run waits for a model file."""

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


def _script_session(tmp_path) -> dict:
    marker = tmp_path / "ran.marker"
    script = tmp_path / "train.py"
    script.write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n")
    config = RunConfig(
        source=ModelSource(str(script)),
        script=ScriptSource(path=str(script), args=("--bs={batch_size}",), sweep="batch_size"),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(8, 16),
        steps=9,
    )
    return config.to_dict()


def test_a_script_session_keeps_its_script_out_of_the_model_field(panel, tmp_path, qtbot):
    state = _script_session(tmp_path)
    panel.restore(state)
    assert not panel.is_valid()
    assert panel.error().startswith(
        f"this session profiled a script (python {tmp_path / 'train.py'} --bs={{batch_size}}); "
        "the window does not run scripts yet"
    )
    assert panel.model.current_path() == str(example_path("simple"))  # not the script
    assert "script" not in panel.carried.text() and panel.steps.value() == 9
    assert not (tmp_path / "ran.marker").exists()


def test_choosing_a_model_file_again_lets_run_go(panel, tmp_path, qtbot):
    panel.restore(_script_session(tmp_path))
    panel.model.set_path(str(example_path("cnn")))
    qtbot.waitUntil(panel.is_valid, timeout=60_000)
    assert panel.config().script is None
    assert not (tmp_path / "ran.marker").exists()
