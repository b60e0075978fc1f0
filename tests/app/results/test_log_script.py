"""A script's run: the logs say its phases in its words, from the run's typed plan."""

from __future__ import annotations

import pytest

from tcprof.app.results.log_panel import LogPanel
from tcprof.profiler.config.script import ScriptSource

pytestmark = pytest.mark.timeout(30)


def test_a_scripts_phases_are_said_in_its_sweeps_words(qtbot):
    panel = LogPanel()
    qtbot.addWidget(panel)
    panel.start(["eager"])
    script = {"path": "/p/train.py", "args": ["--bs", "{batch_size}"], "sweep": "batch_size"}
    panel.add_events([{"type": "run_start", "config": {"script": script}}])
    assert isinstance(panel.script, ScriptSource) and panel.script.sweep == "batch_size"
    panel.add_events([{"type": "error", "arm": 0, "batch_size": 8, "kind": "oom", "message": "x"}])
    assert "batch_size=8" in panel.text.toPlainText()
    panel.start(["eager"])
    assert panel.script is None, "a new run forgets the last one's script"
