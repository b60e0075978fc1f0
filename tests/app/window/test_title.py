"""The window's title reads a saved session through the typed model."""

from __future__ import annotations

import time

import pytest

from tcprof.app.window.title import TITLE, session_date, window_title
from tcprof.profiler.model.session import SessionModel

pytestmark = pytest.mark.timeout(30)


def test_the_title_reads_the_session_model():
    started = 1_700_000_000.0
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(started))
    saved = {"started_at": started, "config": {"source": {"path": "/m/net.py"}}, "arms": []}
    expected = f"net.py — session of {when} — {TITLE}"
    assert window_title("/a/other.py", SessionModel.from_json(saved)) == expected
    assert session_date(SessionModel.from_json({"started_at": True})) == "unknown date"
