"""Bad input and failing models: shown in the window, never raised; the window stays usable."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tcprof.app.window.error_banner import ErrorBanner
from tests.app.conftest import FAST_RUN_TIMEOUT_MS, configure_fast, write_model
from tests.support.paths import ROOT


@pytest.mark.parametrize(
    "text, needle",
    [
        ("32, x", "'x' is not a positive integer"),
        ("0", "'0' is not a positive integer"),
        ("32, 32", "listed twice"),
        ("", "at least one batch size"),
    ],
)
def test_invalid_batch_sizes_are_shown_inline_and_block_run(make_window, qtbot, text, needle):
    window = make_window(background=False)
    assert window.commands.run.isEnabled()
    window.setup.batch_sizes.clear()
    qtbot.keyClicks(window.setup.batch_sizes, text)
    assert not window.commands.run.isEnabled()
    assert window.setup.batch_error.isVisible()
    assert needle in window.setup.batch_error.text()
    window.commands.run.trigger()  # a shortcut racing the disabled action does nothing
    assert window.controller.thread is None
    window.setup.batch_sizes.setText("8, 16")
    assert window.commands.run.isEnabled() and not window.setup.batch_error.isVisible()


def test_invalid_input_shape_blocks_run(make_window):
    window = make_window(background=False)
    window.setup.model.input_shape.setText("3xfoo")
    assert not window.commands.run.isEnabled()
    assert "is not of the form" in window.setup.model.shape_error.text()
    window.setup.model.input_shape.setText("10")
    assert window.commands.run.isEnabled()


def test_duplicate_arms_block_run_with_a_reason(make_window):
    from tcprof.profiler.config import ArmSpec

    window = make_window(background=False)
    window.setup.arms.set_arms([ArmSpec("eager"), ArmSpec("eager")])
    assert not window.commands.run.isEnabled()
    assert "distinct" in window.setup.problem.text()
    window.setup.arms.set_arms([ArmSpec("eager")])
    assert window.commands.run.isEnabled()


NEEDS_WIDTH = (
    "import torch.nn as nn\n\n\nclass SimpleNet(nn.Module):\n    def __init__(self, width):\n"
    "        super().__init__()\n        self.fc = nn.Linear(width, 1)\n\n"
    "    def forward(self, x):\n        return self.fc(x)\n"
)


def test_a_model_file_with_a_syntax_error_then_a_constructor_with_arguments(
    window, qtbot, tmp_path
):
    """Both block Run with the reason; the second is found because the file, once inspected, is
    watched and inspected again when it changes on disk."""
    path = write_model(
        tmp_path, "broken.py", "import torch\n\nclass M(torch.nn.Module:\n    pass\n"
    )
    window.load_model(path)
    model = window.setup.model
    qtbot.waitUntil(lambda: "syntax" in model.summary.text(), timeout=60_000)
    assert "broken.py" in model.summary.text() or "line 3" in model.summary.text()
    assert not window.commands.run.isEnabled()
    assert "syntax error" in window.commands.run.toolTip()

    with qtbot.waitSignal(model.reinspected, timeout=60_000) as reloaded:
        Path(path).write_text(NEEDS_WIDTH, encoding="utf-8")  # fixed in an editor
    assert reloaded.args == ["broken.py changed on disk: re-inspected"]
    assert window.statusBar().currentMessage() == reloaded.args[0]
    reason = (
        "SimpleNet.__init__() missing 1 required positional argument: 'width' (broken.py, "
        "line 5): give a factory in the Factory field, or default values for the constructor's "
        "arguments"
    )
    assert model.summary.text() == reason and model.summary.isVisible()
    assert not window.commands.run.isEnabled()
    assert window.commands.run.toolTip() == f"Cannot run: {reason}"
    window.commands.run.trigger()  # disabled: nothing starts
    assert window.controller.thread is None


def test_a_crashed_worker_is_reported_and_the_window_stays_usable(make_window, qtbot, tmp_path):
    window = make_window(background=False)
    path = write_model(
        tmp_path,
        "crashing.py",
        "import os\nimport torch.nn as nn\n\n\nclass Crash(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 1)\n\n"
        "    def forward(self, x):\n        os._exit(3)\n",
    )
    window.load_model(path)
    window.setup.model.input_shape.setText("4")
    configure_fast(window, arms=("eager",), batch_sizes="8", warmup=1, steps=3)
    with qtbot.waitSignal(window.controller.runEnded, timeout=FAST_RUN_TIMEOUT_MS):
        window.commands.run.trigger()
    assert window.banner.isVisible(), window.banner.text()
    assert "crash error" in window.banner.text()
    assert "exit" in window.banner.text().lower() or "3" in window.banner.text()
    qtbot.mouseClick(window.banner.details_button, Qt.MouseButton.LeftButton)
    assert window.banner.details.isVisible() and window.banner.details.toPlainText()
    rows = window.results.rows()
    assert rows and rows[0][2].startswith("error")
    assert window.commands.run.isEnabled() and window.setup.isEnabled()


USER_FILE = "/home/me/project/model.py"
TRACEBACK = f"""Traceback (most recent call last):
  File "{ROOT}/profiler/worker/arm_worker.py", line 88, in run
    step()
  File "{sysconfig.get_paths()["stdlib"]}/contextlib.py", line 81, in inner
    return func(*args, **kwds)
  File "{USER_FILE}", line 12, in forward
    return self.fc(x.view(-1, 7))
           ^^^^^^^^^^^^^^^^^^^^^^
  File "/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py", line 125, in forward
    return F.linear(input, self.weight, self.bias)
RuntimeError: shape '[-1, 7]' is invalid for input of size 80
"""


def test_a_traceback_shows_the_users_frames_first_and_the_rest_on_request(qtbot):
    banner = ErrorBanner()
    qtbot.addWidget(banner)
    banner.add(
        {"kind": "forward", "message": "the first forward failed", "traceback": TRACEBACK}, []
    )
    banner.show()
    qtbot.mouseClick(banner.details_button, Qt.MouseButton.LeftButton)
    assert banner.all_frames.isVisible() and banner.all_frames.text() == "Show all frames"
    shown = banner.details.toPlainText()
    assert f'File "{USER_FILE}", line 12, in forward' in shown
    assert "return self.fc(x.view(-1, 7))" in shown and "RuntimeError: shape" in shown
    for hidden in ("arm_worker.py", "contextlib.py", "linear.py", "F.linear"):
        assert hidden not in shown
    assert "3 frames of tcprof, torch and the standard library hidden" in shown
    qtbot.mouseClick(banner.all_frames, Qt.MouseButton.LeftButton)
    assert banner.details.toPlainText().rstrip().endswith(TRACEBACK.rstrip())
    assert banner.all_frames.text() == "User frames only"


def test_inspection_errors_read_in_the_windows_terms():
    from tcprof.app.setup.model_picker import build_problem

    needs = {
        "stage": "build",
        "needs_arguments": True,
        "cause": "M.__init__() missing 1 required positional argument: 'n'",
        "message": 'M() needs arguments (...); pass a factory expression, e.g. --factory "M(...)"',
        "file": "/x/model.py",
        "line": 4,
    }
    assert build_problem(needs) == (
        "M.__init__() missing 1 required positional argument: 'n' (model.py, line 4): give a "
        "factory in the Factory field, or default values for the constructor's arguments"
    )
    raised = {"stage": "build", "message": "building M() raised ValueError: no", "file": None}
    assert build_problem(raised) == "the model cannot be built: building M() raised ValueError: no"
    inputs = {"stage": "input", "message": "cannot infer the input shape; pass --input-shape"}
    assert build_problem(inputs) == (
        "the model's inputs cannot be made: cannot infer the input shape; fill in the Input "
        "shape field"
    )
    assert build_problem({"stage": "import", "kind": "load", "message": "ImportError"}) is None
    assert build_problem(None) is None


def test_an_input_error_blocks_run_only_for_the_shape_it_was_found_with(make_window):
    from tcprof.profiler.process.inspected import Inspection

    window = make_window(background=False)
    picker = window.setup.model
    error = {"kind": "load", "stage": "input", "message": "cannot infer; pass --input-shape"}
    answer = Inspection.of({"error": error})  # the worker's answer, read once
    picker._show_answer(picker._generation, answer)
    assert not window.commands.run.isEnabled()
    assert "fill in the Input shape field" in window.commands.run.toolTip()
    picker.input_shape.setText("10")  # typed, not yet inspected: the answer is not for it
    assert window.commands.run.isEnabled()


def test_the_banner_keeps_each_error_as_the_models_typed_problem(qtbot):
    from tcprof.profiler.model.figures import Problem

    banner = ErrorBanner()
    qtbot.addWidget(banner)
    banner.add(
        {"type": "error", "kind": "oom", "arm": 1, "batch_size": 16, "message": "m"}, ["e", "i"]
    )
    banner.add(Problem("load", "no such file", "m.py", 3, None), [])
    assert [type(e) for e in banner.errors] == [Problem, Problem]
    assert [(e.kind, e.arm, e.batch_size) for e in banner.errors] == [
        ("oom", 1, 16),
        ("load", None, None),
    ]
    assert banner.text().startswith("i at bs 16: oom error: m") and "(+1 more)" in banner.text()
    banner.drop(("oom",))
    assert banner.text() == "run: load error: no such file (m.py:3)"
