"""Where a run's time went is typed in the model (model/timeline.py): the timeline
analysis/timeline.py writes reads back as lanes of spans and totals with the figures it saved;
a session from before it has none, and what an old or hand-edited session holds reads
tolerantly."""

from __future__ import annotations

import pytest

from tcprof.profiler.analysis.timeline import COMPILING, MEASUREMENT, build_timeline
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.model.timeline import Lane, Span, Timeline
from tcprof.profiler.report.sections import timeline as section
from tcprof.profiler.session.marks import timeline_mark

pytestmark = pytest.mark.timeout(30)

EVENTS = [
    {"type": "run_start", "t": 0.0},
    {"type": "arm_start", "arm": 0, "replicate": 0, "t": 0.0, "cache": "cold"},
    {"type": "hello", "arm": 0, "replicate": 0, "t": 2.0},
    {"type": "phase", "arm": 0, "replicate": 0, "t": 2.0, "phase": "compiling"},
    {"type": "phase", "arm": 0, "replicate": 0, "t": 5.0, "phase": "measuring"},
    {"type": "block_done", "arm": 0, "replicate": 0, "t": 9.0, "batch_size": 8},
    {"type": "arm_start", "arm": 0, "replicate": "accuracy", "t": 9.0},
    {"type": "worker_exit", "arm": 0, "replicate": "accuracy", "t": 10.0},
    {"type": "run_end", "t": 10.0},
]


def test_the_saved_timeline_reads_back_typed_with_its_figures() -> None:
    saved = build_timeline([m for m in map(timeline_mark, EVENTS) if m], ["inductor"])
    timeline = SessionModel.from_json({"arms": [], "timeline": saved}).timeline
    assert isinstance(timeline, Timeline)
    assert timeline.wall_s == saved["wall_s"] == 10.0
    assert timeline.gaps_s == saved["gaps_s"]
    assert dict(timeline.totals) == saved["totals"]
    assert timeline.total(COMPILING) == 3.0 and timeline.total(MEASUREMENT) == 4.0
    assert timeline.total("not a category") == 0.0
    first, accuracy = timeline.lanes
    assert (first.arm, first.name, first.round, first.cache) == (0, "inductor", 0, "cold")
    assert accuracy.round == "accuracy"
    assert [(s.start, s.end, s.what, s.category) for s in first.spans] == [
        (s["start"], s["end"], s["what"], s["category"]) for s in saved["lanes"][0]["spans"]
    ]
    blocks = first.spans[-1]
    assert (blocks.what, blocks.batch_size, blocks.count) == ("blocks", 8, 1)
    assert section.lane_label(first) == "inductor · round 1"
    assert section.lane_label(accuracy) == "inductor · accuracy"


def test_a_session_from_before_the_timeline_has_none() -> None:
    model = SessionModel.from_json({"arms": []})
    assert model.timeline is None
    assert section.timeline_of(model) is None and section.summary_line(model) is None
    assert section.html_section(model, str) == "" and section.markdown_lines(model, str) == []


def test_an_old_or_hand_edited_timeline_reads_tolerantly() -> None:
    odd = {
        "wall_s": "soon",
        "totals": {"measurement": 2, "other": "x", "compiling": None},
        "lanes": [
            "not a lane",
            {"round": True, "spans": [1, {"start": "a", "end": 3, "category": 7, "count": 2.5}]},
        ],
    }
    timeline = Timeline.of(odd)
    assert timeline is not None
    assert timeline.wall_s is None and timeline.gaps_s is None
    assert dict(timeline.totals) == {"measurement": 2.0}
    assert timeline.lanes == (
        Lane(None, None, None, None, (Span(None, 3.0, None, None, None, None),)),
    )
    assert Timeline.of(None) is None and Timeline.of([1, 2]) is None


def test_a_timeline_without_lanes_is_not_drawn() -> None:
    model = SessionModel.from_json({"arms": [], "timeline": {"wall_s": 1.0, "lanes": []}})
    assert model.timeline is not None and model.timeline.lanes == ()
    assert section.timeline_of(model) is None and section.html_section(model, str) == ""
