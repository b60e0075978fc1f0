"""The window's run, untouched, is the command line's run with every default: the built-in
example ran at batch sizes 32 and 64 in the window and at 32 on the command line (issue 42:
both are held to the same 40 s)."""

from __future__ import annotations

import pytest

from tcprof.app.setup.setup_panel import SetupPanel
from tcprof.profiler.cli.main import build_parser
from tcprof.profiler.config import RunConfig, parse_batch_sizes

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def panel(qtbot):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    return panel


def test_the_window_measures_the_batch_sizes_the_command_line_does(panel):
    window = parse_batch_sizes(panel.batch_sizes.text())
    cli = build_parser().parse_args(["run", "--example", "simple"])
    assert window == parse_batch_sizes(cli.batch_sizes)
    assert window == RunConfig.__dataclass_fields__["batch_sizes"].default
