"""Where the time went in the reports (report/sections/timeline.py): report.html's Gantt chart
and totals line, report.md's totals table, the terminal's one line; a session from before the
timeline renders as before, without them."""

from __future__ import annotations

from typing import Any

import pytest

from tcprof.profiler.analysis.timeline import build_timeline
from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.sections import timeline as section
from tcprof.profiler.session.marks import timeline_mark
from tests.support.synthetic import synthetic_session

pytestmark = pytest.mark.timeout(30)


def _with_timeline() -> dict[str, Any]:
    events = [
        {"type": "run_start", "t": 0.0},
        {"type": "arm_start", "arm": 0, "replicate": 0, "t": 0.0},
        {"type": "arm_start", "arm": 1, "replicate": 0, "t": 0.0, "cache": "cold"},
        {"type": "hello", "arm": 0, "replicate": 0, "t": 9.0},
        {"type": "hello", "arm": 1, "replicate": 0, "t": 9.0},
        {"type": "phase", "arm": 1, "replicate": 0, "t": 9.0, "phase": "compiling"},
        {"type": "phase", "arm": 1, "replicate": 0, "t": 23.0, "phase": "idle"},
        {"type": "phase", "arm": 0, "replicate": 0, "t": 23.0, "phase": "measuring"},
        {"type": "block_done", "arm": 0, "replicate": 0, "t": 54.0, "waited_s": 0.0},
        {"type": "arm_start", "arm": 1, "replicate": "accuracy", "t": 54.0},
        {"type": "phase", "arm": 1, "replicate": "accuracy", "t": 55.0, "phase": "accuracy"},
        {"type": "worker_exit", "arm": 1, "replicate": "accuracy", "t": 60.0},
        {"type": "run_end", "t": 62.0},
    ]
    marks = [m for m in (timeline_mark(e) for e in events) if m]
    session = synthetic_session()
    session["timeline"] = build_timeline(marks, [a["name"] for a in session["arms"]])
    return session


def test_the_terminal_says_where_the_time_went_in_one_line() -> None:
    session = _with_timeline()
    assert section.summary_line(SessionModel.read(session)) == (
        "1 min 2 s: 31 s measuring, 14 s compiling, 9 s start-up, 6 s accuracy, 2 s other"
    )
    assert "time: 1 min 2 s: 31 s measuring" in render_summary(SessionModel.read(session))


def test_report_html_draws_a_lane_per_process_and_the_totals() -> None:
    page = render_html(SessionModel.read(_with_timeline()))
    assert '<section id="timeline">' in page and 'href="#timeline"' in page
    chart = page.split('<svg viewBox="0 0 720', 1)[1].split("</svg>", 1)[0]
    assert chart.count("<text") >= 3 + 5  # three lanes' labels, five ticks
    assert "aot_eager · round 1" in chart and "aot_eager · accuracy" in chart
    assert "cold compile: 14.00 s" in chart
    assert "31 s measuring" in page


def test_report_md_has_a_totals_table() -> None:
    text = render_markdown(SessionModel.read(_with_timeline()))
    assert "**Where the time went**" in text
    assert "| measurement | 31.00 s | 50% |" in text
    assert "| **run** | **62.00 s** | |" in text


def test_a_session_from_before_the_timeline_renders_without_it() -> None:
    session = synthetic_session()
    assert "timeline" not in session
    assert '<section id="timeline">' not in render_html(SessionModel.read(session))
    assert "Where the time went" not in render_markdown(SessionModel.read(session))
    assert "time:" not in render_summary(SessionModel.read(session))
