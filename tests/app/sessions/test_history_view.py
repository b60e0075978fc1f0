"""The History view, opened from the Sessions list: a series of synthetic sessions whose change is
known by construction (tests/support/history_series.py) shown as `tcprof history` shows it, its
table, the flagged sentence and one chart point per session; a session alone says so in a line."""

from __future__ import annotations

import json

import pytest

from tcprof.app.sessions.dialog import SessionsDialog
from tcprof.app.sessions.history_charts import CHARTS
from tcprof.app.sessions.history_view import NO_CHANGE, HistoryDialog
from tests.support.history_series import write_series

pytestmark = pytest.mark.timeout(60)


def _open_history(qtbot, folder_name: str, root) -> HistoryDialog:
    sessions = SessionsDialog()
    qtbot.addWidget(sessions)
    sessions.select_folder(root / folder_name)
    assert sessions.history_button.isEnabled()
    sessions.history_button.click()
    view = sessions.history
    assert view is not None
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: view.series is not None, timeout=20_000)
    return view


def test_a_series_shows_its_table_its_flagged_change_and_a_point_per_session(qtbot, private_home):
    root = private_home / "sessions"
    commits = write_series(root, [1.0, 1.0, 1.0, 1.2, 1.2])
    view = _open_history(qtbot, "run-0001", root)
    rows = view.rows()
    assert [r[1] for r in rows] == commits, "one row per session, oldest first, by commit"
    header = view.header()
    assert header[:4] == ["date", "commit", "torch", "bs"]
    assert "aot_eager speedup" in header and "aot_eager compile s cold/warm" in header
    speedups = [r[header.index("aot_eager speedup")] for r in rows]
    assert all(s.startswith("1.2") for s in speedups[:3]) and speedups[3].startswith("1.0")
    assert all(r[2] == "2.13.0+cpu" for r in rows)
    text = view.changes.text()
    assert text.count("•") == 1, text
    assert "aot_eager's speedup (bs 8) fell from 1.2" in text
    assert f"at {commits[3]} (torch unchanged)" in text
    assert view.series is not None and view.series.picked == (1,), "the picked session marked"
    points = view.charts.points("speedup")
    assert list(points) == ["aot_eager bs 8"], "the baseline has no speedup line"
    xs = [x for x, _y in points["aot_eager bs 8"]]
    assert xs == [0.0, 1.0, 2.0, 3.0, 4.0]
    ys = [y for _x, y in points["aot_eager bs 8"]]
    assert ys[2] > 1.15 and ys[3] < 1.1
    assert set(view.charts.points("ms")) == {"eager bs 8", "aot_eager bs 8"}
    ticks = view.charts.plots["speedup"].getAxis("bottom")._tickLevels
    assert [label for _x, label in ticks[0]] == commits, "the x axis is labelled by commit"
    tip = view.charts.point_tip(3.0, ys[3], ("aot_eager bs 8", CHARTS[0].text))
    assert f"commit {commits[3]}" in tip and "torch 2.13.0+cpu" in tip and "×" in tip


def test_a_series_without_change_says_so(qtbot, private_home):
    root = private_home / "sessions"
    write_series(root, [1.0] * 4)
    view = _open_history(qtbot, "run-0003", root)
    assert view.changes.text().startswith(NO_CHANGE)
    assert len(view.rows()) == 4


def test_a_session_alone_in_its_series_gets_one_line(qtbot, private_home):
    root = private_home / "sessions"
    write_series(root, [1.0, 1.0])
    other = json.loads((root / "run-0001" / "session.json").read_text())
    other["config"]["batch_sizes"] = [16]  # another series: another key
    other["series"] = {"key": "another", "text": "models/model.py · bs 16", "parts": {}}
    (root / "run-0001" / "session.json").write_text(json.dumps(other))
    view = _open_history(qtbot, "run-0001", root)
    assert "the only session of its series" in view.head.text()
    assert "\n" not in view.head.text()
    assert not view.split.isVisibleTo(view) and view.rows() == []
