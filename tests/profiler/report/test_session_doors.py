"""The readers' doors take the typed session model (issue 40, item 3): a session.json dict is
read into `SessionModel` once, where it is loaded, not at each door."""

from __future__ import annotations

from typing import get_type_hints

import pytest

from tcprof.profiler.analysis import verdict
from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report import changes, compare

DOORS = [
    render_summary,
    verdict.session_verdicts,
    verdict.session_notes,
    verdict.verdict_lines,
    changes.method_note,
    changes.compare_sessions,
    compare.comparison_warnings,
    compare.diff_sessions,
]


@pytest.mark.parametrize("door", DOORS, ids=lambda d: d.__name__)
def test_a_door_takes_the_model_not_a_dict(door):
    hints = get_type_hints(door)
    sessions = {k: v for k, v in hints.items() if k not in ("return", "margin")}
    assert sessions and all(h is SessionModel for h in sessions.values()), sessions
