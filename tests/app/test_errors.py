"""Bad input and failing models: shown in the window, never raised; the window stays usable."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.app.conftest import FAST_RUN_TIMEOUT_MS, configure_fast, write_model


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
    from profiler.config import ArmSpec

    window = make_window(background=False)
    window.setup.arms.set_arms([ArmSpec("eager"), ArmSpec("eager")])
    assert not window.commands.run.isEnabled()
    assert "distinct" in window.setup.problem.text()
    window.setup.arms.set_arms([ArmSpec("eager")])
    assert window.commands.run.isEnabled()


def test_a_model_file_with_a_syntax_error_shows_the_message(window, qtbot, tmp_path):
    path = write_model(
        tmp_path, "broken.py", "import torch\n\nclass M(torch.nn.Module:\n    pass\n"
    )
    window.load_model(path)
    qtbot.waitUntil(lambda: "syntax" in window.setup.model.summary.text(), timeout=60_000)
    assert (
        "broken.py" in window.setup.model.summary.text()
        or "line 3" in window.setup.model.summary.text()
    )
    assert not window.commands.run.isEnabled()
    assert "syntax error" in window.commands.run.toolTip()


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
