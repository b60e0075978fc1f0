"""A session the window shows is read into the typed model once, and every part reads that one
model: a saved session opened from disk (once for the Sessions' actions, once for the display,
twice more for the Ladder tab before), and the results' tabs given a model."""

from __future__ import annotations

from typing import Any

import pytest

from tcprof.app.results.results_view import ResultsView
from tcprof.profiler.model.session import SessionModel
from tests.app.conftest import write_session
from tests.support.synthetic import synthetic_session

pytestmark = pytest.mark.timeout(60)


def _count_readings(monkeypatch) -> list[Any]:
    """Every session.json dict read into a model from now on."""
    readings: list[Any] = []
    original = SessionModel.from_json

    def counted(doc, path=None):
        readings.append(path)
        return original(doc, path)

    monkeypatch.setattr(SessionModel, "from_json", counted)
    return readings


def test_a_session_opened_from_disk_is_read_once_and_shown_as_read(
    make_window, tmp_path, monkeypatch
):
    window = make_window(background=False)
    write_session(tmp_path / "saved", 1.0)
    readings = _count_readings(monkeypatch)
    assert window.sessions.open_session(tmp_path / "saved")
    assert readings == [tmp_path / "saved"]
    shown = window.sessions.session
    assert window.results.insight.session is shown
    assert window.results.profile.session is shown


def test_the_results_tabs_read_the_model_they_are_given(qtbot, monkeypatch):
    view = ResultsView()
    qtbot.addWidget(view)
    model = SessionModel.from_json(synthetic_session())
    readings = _count_readings(monkeypatch)
    view.show_session(model)
    assert readings == []
    assert view.insight.session is model and view.profile.session is model
    assert view.code._session is model
