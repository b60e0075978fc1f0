"""Where the run's time went (session.json's `timeline`, analysis/timeline.py, read by the model
into model/timeline.py's `Timeline`): report.html's Gantt chart (one lane per process: an arm in
a round, or its accuracy process) with its totals line, report.md's totals table and the
terminal's one line. A session from before the timeline has none of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tcprof.profiler.analysis.timeline import CATEGORIES, totals_line
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.model.timeline import Lane, Timeline
from tcprof.profiler.protocol import units
from tcprof.profiler.report.palette import CATEGORY_COLOURS

Esc = Callable[[Any], str]

# the terminal's words for a category ("31 s measuring, 14 s compiling")
SHORT = {
    "measurement": "measuring",
    "compiling": "compiling",
    "accuracy pass": "accuracy",
    "start-up": "start-up",
    "waiting for a quiet machine": "waiting for a quiet machine",
    "other": "other",
}
LANE_H, GAP, LEFT, RIGHT, TOP, WIDTH = 14, 4, 120, 12, 8, 720


def timeline_of(session: SessionModel) -> Timeline | None:
    """The session's timeline when it has lanes to draw (None: a session from before it)."""
    timeline = session.timeline
    return timeline if timeline is not None and timeline.lanes else None


def summary_line(session: SessionModel) -> str | None:
    """'62 s: 31 s measuring, 14 s compiling, 9 s start-up, 6 s accuracy, 2 s other'."""
    timeline = timeline_of(session)
    if timeline is None:
        return None
    parts = [f"{units.duration(s)} {SHORT.get(c, c)}" for c, s in totals_line(timeline)]
    return f"{units.duration(timeline.wall_s)}: " + ", ".join(parts)


def lane_label(lane: Lane) -> str:
    """'inductor · round 2', 'inductor · accuracy'."""
    rnd = lane.round
    where = f"round {rnd + 1}" if isinstance(rnd, int) else str(rnd)
    return f"{lane.name} · {where}"


def markdown_lines(session: SessionModel, md_text: Callable[[Any], str]) -> list[str]:
    timeline = timeline_of(session)
    if timeline is None:
        return []
    wall = units.number(timeline.wall_s) or 0.0
    out = ["**Where the time went**", "", "| category | time | share |", "|---|---:|---:|"]
    for category in CATEGORIES:
        seconds = units.number(timeline.total(category)) or 0.0
        share = units.percent(seconds / wall) if wall > 0 else units.MISSING
        out.append(f"| {md_text(category)} | {units.seconds(seconds)} | {share} |")
    out.append(f"| **run** | **{units.seconds(wall)}** | |")
    return [*out, ""]


def html_section(session: SessionModel, esc: Esc) -> str:
    timeline = timeline_of(session)
    if timeline is None:
        return ""
    line = summary_line(session) or ""
    legend = "".join(
        f'<span class="tl-key"><span style="display:inline-block;width:10px;height:10px;'
        f'background:{CATEGORY_COLOURS.get(c, "#999")}"></span> {esc(c)}</span> '
        for c in CATEGORIES
    )
    return (
        '<section id="timeline"><h2>Where the time went</h2>'
        f'<p>{esc(line)}</p>{svg(timeline, esc)}<p class="note">{legend}</p>'
        '<p class="note">Each lane is one process; a run\'s time goes to the first of '
        "measurement, waiting for a quiet machine, compiling, accuracy pass and start-up that "
        "any process was doing, the rest to other (the engine's own time included).</p>"
        "</section>"
    )


def svg(timeline: Timeline, esc: Esc) -> str:
    """One lane per process, its spans coloured by category, on the run's wall-clock axis."""
    lanes = timeline.lanes
    wall = units.number(timeline.wall_s) or 0.0
    if not lanes or wall <= 0:
        return ""
    height = TOP + len(lanes) * (LANE_H + GAP) + 24
    span_w = WIDTH - LEFT - RIGHT

    def sx(t: Any) -> float:
        v = units.number(t) or 0.0
        return LEFT + min(max(v, 0.0), wall) / wall * span_w

    label = 'font-size="11" fill="#59636e"'
    parts = [f'<svg viewBox="0 0 {WIDTH} {height}" role="img" class="timeline">']
    for i, lane in enumerate(lanes):
        y = TOP + i * (LANE_H + GAP)
        parts.append(
            f'<text x="{LEFT - 6}" y="{y + LANE_H - 3}" text-anchor="end" {label}>'
            f"{esc(lane_label(lane))}</text>"
        )
        for span in lane.spans:
            x0, x1 = sx(span.start), sx(span.end)
            colour = CATEGORY_COLOURS.get(str(span.category), "#999999")
            tip = f"{span.what}: {units.seconds((span.end or 0) - (span.start or 0))}"
            parts.append(
                f'<rect x="{_px(x0)}" y="{y}" width="{_px(max(x1 - x0, 0.5))}" height="{LANE_H}" '
                f'fill="{colour}"><title>{esc(tip)}</title></rect>'
            )
    base = TOP + len(lanes) * (LANE_H + GAP) + 4
    parts.append(
        f'<line x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}" stroke="#59636e"/>'
    )
    for k in range(5):
        t = wall * k / 4
        parts.append(
            f'<text x="{_px(sx(t))}" y="{base + 14}" text-anchor="middle" {label}>'
            f"{esc(units.duration(t))}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _px(value: float) -> str:
    """An SVG coordinate, to a tenth of a pixel."""
    return str(round(value, 1))
