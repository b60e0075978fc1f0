"""The Debug preset ticks what it says it sets (debug_options.py's PRESET_TEXT): the graph-break
and recompile logs, verbose and the explain pre-pass, and the panel adds an aot_eager arm once."""

from __future__ import annotations

import pytest

from tcprof.app.setup.setup_panel import SetupPanel
from tcprof.profiler.config import DebugOptions

pytestmark = pytest.mark.timeout(30)


def test_the_debug_preset_sets_its_logs_verbose_explain_and_an_aot_eager_arm(qtbot):
    panel = SetupPanel(None)
    qtbot.addWidget(panel)
    assert panel.debug.options() == DebugOptions()
    with qtbot.waitSignal(panel.debug.presetRequested):
        panel.debug.preset.click()
    options = panel.debug.options()
    assert set(options.logs) == {"graph_breaks", "recompiles"}
    assert options.verbose and options.explain
    assert not options.suppress_errors and not options.fail_on_recompile
    backends = [a.backend for a in panel.arms.arms()]
    assert backends.count("aot_eager") == 1
    panel.debug.preset.click()
    assert [a.backend for a in panel.arms.arms()] == backends, "the arm is added once"
