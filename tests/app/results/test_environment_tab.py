"""The Environment tab reads the worker's hello as the model's typed `Environment`: each field
the worker gave, in order, lists joined, the compile backends last ("detecting" until known)."""

from __future__ import annotations

import pytest

from tcprof.app.results.results_view import ResultsView, environment_rows
from tcprof.profiler.model.context import Environment

pytestmark = pytest.mark.timeout(30)

HELLO = {
    "type": "hello",
    "arm": 0,
    "t": 1.0,
    "torch": "2.5.1",
    "python": "3.12.3",
    "device": "cuda",
    "cpu_count": 16,
    "cuda": "",  # said as empty: left out
    "cuda_available": False,
    "devices": ["cpu", "cuda:0"],
    "backends": ["eager", "inductor"],
}


def _cells(view: ResultsView) -> list[tuple[str, str]]:
    table = view.environment
    return [(table.item(r, 0).text(), table.item(r, 1).text()) for r in range(table.rowCount())]


def test_the_environment_tab_shows_the_typed_hello(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_environment(Environment.of(HELLO))
    assert _cells(view) == [
        ("torch", "2.5.1"),
        ("Python", "3.12.3"),
        ("device", "cuda"),
        ("CPU cores", "16"),
        ("CUDA available", "False"),
        ("devices", "cpu, cuda:0"),
        ("compile backends", "eager, inductor"),
    ]


def test_an_unknown_environment_is_still_being_detected(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_environment(None)
    assert _cells(view) == [("compile backends", "(detecting…)")]
    assert environment_rows(Environment.of({})) == []  # an old session without one
