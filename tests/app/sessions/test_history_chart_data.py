"""The History view's charts read the engine's `chart_data` once into typed lines
(sessions/history_charts.py `ChartData`): a missing figure is NaN, a missing session field '?'."""

from __future__ import annotations

import math

import pytest

from tcprof.app.sessions.history_charts import CHARTS, ChartData, ChartSession

pytestmark = pytest.mark.timeout(10)


def test_chart_data_reads_as_typed_sessions_and_lines() -> None:
    data = ChartData.of(
        {
            "sessions": [{"commit": "abc1234", "torch": "2.5", "date": "2026-12-06"}, {}],
            "lines": [
                {
                    "arm": "inductor",
                    "bs": 8,
                    "compiled": True,
                    "speedup": [1.2, None],
                    "low": [1.1, None],
                    "high": [1.3, None],
                    "ms": [10.0, float("inf")],
                    "cold": [3.0, 2.0],
                }
            ],
        }
    )
    assert data.sessions == (
        ChartSession("abc1234", "2.5", "2026-12-06"),
        ChartSession("?", "?", "?"),
    )
    (line,) = data.lines
    assert (line.arm, line.bs, line.compiled) == ("inductor", "8", True)
    assert line.speedup[0] == 1.2 and math.isnan(line.speedup[1])
    assert math.isnan(line.ms[1]), "an infinite figure is not drawn"
    assert line.warm == () and line.memory == ()
    by_name = {chart.name: line.figures(chart) for chart in CHARTS}
    assert by_name["cold"] == (3.0, 2.0) and by_name["speedup"] is line.speedup


def test_an_entry_that_is_not_an_object_is_left_out() -> None:
    data = ChartData.of({"sessions": ["abc", {"commit": None}], "lines": [3, {"arm": "eager"}]})
    assert data.sessions == (ChartSession("None", "?", "?"),)
    (line,) = data.lines
    assert (line.arm, line.bs, line.compiled, line.speedup) == ("eager", "None", False, ())
