"""Opening a session never runs code: the window, `tcprof report` and `tcprof compare` read a
session whose model file writes a marker when imported (and whose factory expression writes
another when evaluated), and neither marker appears until the user confirms in the window.
Also: `tcprof SESSION` opens the window on it, the title names what is open, and the stall
timeout field."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tcprof.app.launcher import window_arguments
from tcprof.app.main import file_to_open
from tcprof.app.setup.setup_panel import MODEL_TRUSTED, SetupPanel
from tcprof.app.window.main_window import INSPECT_AND_RUN_TEXT, RUN_TEXT
from tcprof.app.window.title import TITLE, window_title
from tcprof.profiler.cli import main as cli
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.model.session import SessionModel
from tests.app.conftest import FAST_RUN_TIMEOUT_MS, write_model, write_session

STARTED_AT = 1_700_000_000.0


class Hostile:
    """A saved session naming a model file that marks its import, and a factory that marks
    its evaluation."""

    def __init__(self, tmp_path: Path) -> None:
        self.imported = tmp_path / "imported.marker"
        self.evaluated = tmp_path / "evaluated.marker"
        self.model = write_model(
            tmp_path,
            "marked.py",
            "import pathlib\n"
            f"pathlib.Path({str(self.imported)!r}).write_text('imported')\n"
            "import torch.nn as nn\n\n\n"
            "class Model(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.fc = nn.Linear(4, 1)\n\n"
            "    def forward(self, x):\n"
            "        return self.fc(x)\n",
        )
        self.factory = (
            f"(__import__('pathlib').Path({str(self.evaluated)!r}).write_text('x'), Model())[1]"
        )
        self.folder = tmp_path / "received"
        write_session(
            self.folder,
            STARTED_AT,
            config={
                "source": {
                    "path": self.model,
                    "model": "Model",
                    "factory": self.factory,
                    "input_shape": "4",
                },
                "arms": [{"backend": "eager"}],
                "batch_sizes": [8],
                "warmup": 0,
                "steps": 2,
                "blocks": 1,
                "accuracy": False,
                "min_block_ms": 0.0,
                "stall_timeout_s": 60.0,
            },
        )

    def ran(self) -> bool:
        return self.imported.exists() or self.evaluated.exists()


@pytest.fixture
def hostile(tmp_path) -> Hostile:
    return Hostile(tmp_path)


def _shows_as_text(window, hostile: Hostile) -> None:
    model = window.setup.model
    assert model.current_path() == hostile.model
    assert model.candidate.currentText() == "Model"
    assert model.factory.text() == hostile.factory
    assert model.input_shape.text() == "4"
    assert model.needs_trust() and model.inspect_button.isVisibleTo(window)
    assert window.commands.run.text() == INSPECT_AND_RUN_TEXT
    assert window.commands.run.isEnabled()


def test_an_opened_session_runs_nothing_until_the_user_confirms(make_window, qtbot, hostile):
    window = make_window()  # background calls on: inspection happens if anything asks for it
    assert window.sessions.open_session(hostile.folder / "session.json")
    qtbot.waitUntil(lambda: not window.background.busy(), timeout=60_000)
    assert not hostile.ran()
    _shows_as_text(window, hostile)
    assert window.results.rows()[0][:2] == ["eager", "8"], "the session itself is shown"

    window.commands.run.trigger()
    assert window.notice.text() == (
        f"Running {hostile.model} imports it and runs its code and evaluates {hostile.factory!r}."
    )
    assert [b.text() for b in window.notice.buttons] == ["Inspect and run"]
    assert window.notice.dismiss.text() == "Cancel"
    assert not window.controller.running and not window.background.busy()
    assert not hostile.ran()

    with qtbot.waitSignal(window.controller.runEnded, timeout=FAST_RUN_TIMEOUT_MS) as ended:
        window.notice.buttons[0].click()
        assert window.setup.model.inspecting, "confirmed: the model is inspected first"
    assert hostile.imported.exists() and hostile.evaluated.exists()
    assert window.setup.model.inspection.params == 5, "the inspection answered"
    assert ended.args == ["completed"]
    assert window.commands.run.text() == RUN_TEXT
    assert window.setup.config().stall_timeout_s == 60.0


def test_a_confirmed_model_that_fails_inspection_is_not_run(make_window, qtbot, tmp_path):
    model = write_model(tmp_path, "broken.py", "raise RuntimeError('broken on import')\n")
    write_session(tmp_path / "saved", STARTED_AT, config={"source": {"path": model}})
    window = make_window()
    assert window.open_path(str(tmp_path / "saved"))
    window.commands.run.trigger()
    window.notice.buttons[0].click()
    qtbot.waitUntil(lambda: not window.setup.model.inspecting, timeout=60_000)
    assert "broken on import" in window.setup.model.summary.text()
    assert "Not run: the model could not be inspected" in window.status.label.text()
    assert not window.controller.running


def test_cancel_and_the_inspect_button(make_window, hostile):
    window = make_window(background=False)
    assert window.open_path(str(hostile.folder))
    window.commands.run.trigger()
    window.notice.dismiss.click()
    assert not window.notice.isVisible() and not window.controller.running
    assert window.setup.model.needs_trust()

    window.setup.model.inspect_button.click()
    assert [b.text() for b in window.notice.buttons] == ["Inspect"]
    window.notice.buttons[0].click()
    assert not window.setup.model.needs_trust() and not window.controller.running
    assert window.commands.run.text() == RUN_TEXT
    assert not window.setup.model.inspect_button.isVisibleTo(window)


def test_a_confirmation_for_another_file_does_nothing(make_window, hostile, tmp_path):
    window = make_window(background=False)
    assert window.open_path(str(hostile.folder / "session.json"))
    window.commands.run.trigger()
    confirm = window.notice.buttons[0]
    other = write_model(
        tmp_path, "other.py", "import torch.nn as nn\nM = lambda: nn.Linear(2, 1)\n"
    )
    window.setup.model.set_path(other, trusted=False)
    confirm.click()
    assert window.setup.model.needs_trust() and not window.controller.running


def test_restoring_a_setup_fills_the_panel_as_text_and_trust_comes_from_the_caller(qtbot, hostile):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    config = {
        "source": {"path": hostile.model, "model": "Model", "factory": hostile.factory},
        MODEL_TRUSTED: True,  # a session file may claim anything: not read from the state
    }
    panel.restore(config)
    assert panel.model.needs_trust() and panel.model.inspection is None
    assert panel.state()[MODEL_TRUSTED] is False
    assert panel.config().source.factory == hostile.factory
    panel.restore(config, trust_model=True)
    assert not panel.model.needs_trust()
    panel.restore({"source": {"path": hostile.model, "factory": 3}})  # malformed: skipped
    assert panel.model.factory.text() == hostile.factory
    assert not hostile.ran()


def test_the_last_model_is_trusted_at_start_up_only_if_the_user_trusted_it(
    make_window, hostile, tmp_path
):
    own = write_model(tmp_path, "own.py", "import torch.nn as nn\nM = lambda: nn.Linear(2, 1)\n")
    first = make_window(background=False)
    first.load_model(own)
    first.close()
    second = make_window(background=False)
    assert second.setup.model.current_path() == own and not second.setup.model.needs_trust()
    assert second.sessions.open_session(hostile.folder)
    second.close()
    third = make_window(background=False)
    assert third.setup.model.current_path() == hostile.model
    assert third.setup.model.needs_trust()
    assert third.commands.run.text() == INSPECT_AND_RUN_TEXT


def test_report_and_compare_read_a_session_without_running_it(hostile, tmp_path, capsys):
    assert cli.main(["report", str(hostile.folder), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "report.html").is_file()
    assert cli.main(["compare", str(hostile.folder), str(hostile.folder / "session.json")]) == 0
    assert "eager" in capsys.readouterr().out
    assert not hostile.ran()


def test_a_session_on_the_command_line_opens_in_the_window(make_window, hostile, tmp_path):
    session_json = str(hostile.folder / "session.json")
    assert window_arguments([]) == []
    assert window_arguments(["gui", hostile.model]) == [hostile.model]
    assert window_arguments([session_json]) == [session_json]
    assert window_arguments([str(hostile.folder)]) == [str(hostile.folder)]
    assert window_arguments([str(tmp_path)]) is None, "a folder without a session"
    assert window_arguments(["report", session_json]) is None
    assert window_arguments(["examples"]) is None
    assert file_to_open(["gui-less", hostile.model]) == hostile.model
    assert file_to_open([str(hostile.folder)]) == str(hostile.folder.resolve())
    assert file_to_open([str(tmp_path / "missing.py")]) is None

    window = make_window(background=False)
    assert window.open_path(file_to_open([session_json]))
    assert window.sessions.saved and window.results.rows()[0][0] == "eager"
    _shows_as_text(window, hostile)
    assert not hostile.ran()


def test_the_title_names_what_is_open(make_window, hostile, tmp_path):
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(STARTED_AT))
    assert window_title("") == TITLE
    assert window_title("/a/b/simple.py") == f"simple.py — {TITLE}"
    assert window_title("/a/simple.py", SessionModel.from_json({"started_at": "?"})) == (
        f"unknown model — session of unknown date — {TITLE}"
    )
    window = make_window(background=False)
    assert window.windowTitle() == f"simple.py — {TITLE}"
    own = write_model(tmp_path, "own.py", "import torch.nn as nn\nM = lambda: nn.Linear(2, 1)\n")
    window.load_model(own)
    assert window.windowTitle() == f"own.py — {TITLE}"
    assert window.sessions.open_session(hostile.folder)
    assert window.windowTitle() == f"marked.py — session of {when} — {TITLE}"


def test_the_stall_timeout_field_round_trips(qtbot):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    panel.model.set_path(str(example_path("simple")))
    stall = panel.measurement.stall_timeout
    assert panel.config().stall_timeout_s == 120.0
    assert "never cut" in stall.toolTip() and "stall_timeout_s" in stall.toolTip()
    stall.setValue(30.0)
    assert panel.config().stall_timeout_s == 30.0
    again = SetupPanel(None)
    qtbot.addWidget(again)
    again.restore(panel.state(), trust_model=True)
    assert again.config().stall_timeout_s == 30.0
    stall.setValue(0.0)
    assert stall.text() == "off" and panel.config().stall_timeout_s is None
    again.restore(panel.state())
    assert again.config().stall_timeout_s is None
    again.restore({"stall_timeout_s": 45})  # a session's config
    assert again.config().stall_timeout_s == 45.0
    again.restore({"stall_timeout_s": "soon"})  # malformed: skipped
    assert again.config().stall_timeout_s == 45.0
