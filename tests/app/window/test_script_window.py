"""A training script in the window: File > Open script…, a dropped .py file (a script or a
model file: the window asks; File > Open… and the command line take the same guess at once),
each script's arguments and working directory remembered, and a session's script, which runs
only after the user's word (opening the session never runs it)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from tcprof.app.main import file_to_open
from tcprof.app.window.main_window import RUN_TEXT
from tcprof.app.window.script_opening import CONFIRM_AND_RUN_TEXT, OPEN_AS_MODEL, RUN_AS_SCRIPT
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.run.runner import Runner
from tests.app.conftest import write_session
from tests.support.fake_worker import FakeWorkers
from tests.support.paths import ROOT

pytestmark = pytest.mark.timeout(120)
SCRIPTS = ROOT / "tests" / "support" / "scripts"


@pytest.fixture
def script(tmp_path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return Path(shutil.copy(SCRIPTS / "relu_net.py", folder / "train.py"))


@pytest.fixture
def fake_window(make_window, tmp_path, monkeypatch):
    """A window whose runs use the fake worker (no script runs); their configs are kept."""
    monkeypatch.setenv("TCPROF_HOME", str(tmp_path / "home"))
    configs = []

    def runner(config, listeners):
        configs.append(config)
        return Runner(config, listeners, worker_factory=FakeWorkers())

    window = make_window(background=False, runner_factory=runner)
    window.configs = configs
    return window


def _drop(window, path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)


def _button(window, text: str):
    return next(b for b in window.notice.buttons if b.text() == text)


def test_open_script_makes_it_the_runs_source(make_window, script):
    window = make_window(background=False)
    assert window.commands.open_script in window.menuBar().actions()[0].menu().actions()
    assert window.commands.open_script.shortcut().toString() == "Ctrl+Shift+O"
    assert window.scripts.open_script(str(script))
    setup = window.setup
    assert (
        setup.script.active()
        and setup.script.trusted
        and setup.model_box.title() == ("Training script")
    )
    assert setup.script.cwd.text() == str(script.parent)  # the script's folder, by default
    assert not setup.model.isVisibleTo(setup) and setup.script.isVisibleTo(setup)
    assert "train.py" in window.windowTitle()
    assert window.commands.run.isEnabled() and window.commands.run.text() == RUN_TEXT
    config = setup.config()
    assert config.script.path == str(script) and config.source.path == str(script)
    assert not window.scripts.open_script(str(script.parent / "notes.txt"))
    assert "not a Python script" in window.banner.text()
    window.load_model(str(example_path("simple")))  # a model file replaces the script
    assert not setup.script.active() and setup.config().script is None


def test_each_scripts_arguments_and_folder_come_back(make_window, script, tmp_path):
    other = Path(shutil.copy(script, script.parent / "other.py"))
    window = make_window(background=False)
    window.scripts.open_script(str(script))
    window.setup.script.args.setText("--steps 7")
    window.setup.script.cwd.setText(str(tmp_path))
    window.scripts.open_script(str(other))
    assert window.setup.script.args.text() == "" and window.setup.script.cwd.text() == str(
        script.parent
    )
    window.setup.script.args.setText("--steps 9")
    window.scripts.open_script(str(script))
    assert window.setup.script.args.text() == "--steps 7"
    assert window.setup.script.cwd.text() == str(tmp_path)
    window.close()
    again = make_window(background=False)  # a restart: the last setup, then each script's own
    assert again.setup.script.active() and again.setup.script.path() == str(script)
    again.scripts.open_script(str(other))
    assert again.setup.script.args.text() == "--steps 9"


def test_a_dropped_py_file_asks_script_or_model(make_window, script, tmp_path):
    window = make_window(background=False)
    _drop(window, script)
    assert "train.py: run it as your training script" in window.notice.text()
    assert [b.text() for b in window.notice.buttons] == [RUN_AS_SCRIPT, OPEN_AS_MODEL]
    assert not window.setup.script.active()  # nothing chosen yet
    _button(window, RUN_AS_SCRIPT).click()
    assert window.setup.script.active() and window.setup.script.path() == str(script)
    assert not window.notice.isVisible()
    model = Path(shutil.copy(example_path("simple"), tmp_path / "mymodel.py"))
    _drop(window, model)
    assert [b.text() for b in window.notice.buttons] == [OPEN_AS_MODEL, RUN_AS_SCRIPT]
    _button(window, OPEN_AS_MODEL).click()
    assert not window.setup.script.active()
    assert window.setup.model.current_path() == str(model)


def test_open_and_the_command_line_open_a_script_as_a_script_offering_the_model(
    make_window, script, tmp_path
):
    """File > Open… and `tcprof gui FILE` (both open_path) take the drop's guess at once."""
    window = make_window(background=False)
    assert window.open_path(file_to_open(["gui", str(script)]))
    assert window.setup.script.active() and window.setup.script.trusted
    assert window.setup.script.path() == str(script)
    assert "train.py reads like a training script" in window.notice.text()
    assert [b.text() for b in window.notice.buttons] == [OPEN_AS_MODEL]
    _button(window, OPEN_AS_MODEL).click()
    assert not window.setup.script.active() and not window.notice.isVisible()
    assert window.setup.model.current_path() == str(script)
    model = Path(shutil.copy(example_path("simple"), tmp_path / "mymodel.py"))
    window.scripts.open_script(str(script))
    assert window.open_path(str(model))  # a model file opens as one, asking nothing
    assert not window.setup.script.active() and not window.notice.isVisible()
    assert window.setup.model.current_path() == str(model)


def _script_session(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A saved session of a script that writes a marker when it runs."""
    marker = tmp_path / "ran.marker"
    script = tmp_path / "train.py"
    script.write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n")
    folder = tmp_path / "received"
    source = {"path": str(script), "model": None, "factory": None, "input_shape": None}
    write_session(
        folder,
        1_700_000_000.0,
        config={
            "source": source,
            "script": {"path": str(script), "args": ["--steps", "3"], "cwd": str(tmp_path)},
            "arms": [{"backend": "eager"}],
            "batch_sizes": [1],
            "warmup": 0,
            "steps": 2,
            "blocks": 1,
            "accuracy": False,
            "min_block_ms": 0.0,
        },
    )
    return folder, script, marker


def test_a_sessions_script_runs_only_after_the_users_word(fake_window, tmp_path, qtbot):
    window = fake_window
    folder, script, marker = _script_session(tmp_path)
    assert window.open_path(str(folder))
    setup = window.setup
    assert setup.script.active() and setup.script.needs_trust()
    assert setup.script.args.text() == "--steps 3"
    assert window.commands.run.text() == CONFIRM_AND_RUN_TEXT
    assert "came from a session" in window.commands.run.toolTip()
    window.start_run()
    assert f"Running {script} runs the script" in window.notice.text()
    assert window.configs == [] and not window.controller.running
    window.notice.dismiss.click()  # Cancel
    assert window.configs == [] and setup.script.needs_trust()
    assert window.prefs.script_options(str(script)) == {}  # not remembered unasked
    window.start_run()
    _button(window, "Run the script").click()
    qtbot.waitUntil(lambda: window.configs != [], timeout=10_000)
    qtbot.waitUntil(lambda: not window.controller.running, timeout=60_000)
    config = window.configs[0]
    assert config.script.path == str(script) and config.script.args == ("--steps", "3")
    assert window.commands.run.text() == RUN_TEXT
    assert window.prefs.script_options(str(script))["args"] == "--steps 3"
    assert not marker.exists()  # the fake worker ran nothing; opening the session neither
