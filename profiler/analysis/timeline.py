"""Where a run's time went: each process's spans (start-up, compiles, blocks, the untimed
passes, the waits for a quiet machine) and the run's wall time by category, from the timestamps
its events already carry (the `t` the engine adds when it relays one).

A pure function over the run's timeline marks (`fold` keeps them: `TIMELINE_TYPES`, each
event read once into a typed `Mark` by session/marks.py). A lane is
one process: an arm in a round, or the arm's untimed accuracy process. Within a lane each mark
ends what the process was doing and starts what the mark announces. Processes of a round run
side by side (they load in parallel), so the run's totals are not the lanes' sums: at each
instant the run's time goes to the most important thing any process was doing
(`PRIORITY`), and to "other" where none was doing anything (the engine's own gaps: between
processes, between rounds, the reports). The totals therefore add up to the run's wall time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tcprof.profiler.model.timeline import Timeline
from tcprof.profiler.protocol.events import EventType, Phase

MEASUREMENT = "measurement"
COMPILING = "compiling"
ACCURACY = "accuracy pass"
STARTUP = "start-up"
WAITING = "waiting for a quiet machine"
OTHER = "other"
CATEGORIES = (MEASUREMENT, COMPILING, ACCURACY, STARTUP, WAITING, OTHER)
"""The totals' categories, in the order the reports list them."""
PRIORITY = (MEASUREMENT, WAITING, COMPILING, ACCURACY, STARTUP, OTHER)
"""Whose an instant is when processes overlap: a timed block runs alone (the quiet room waits
for its peers), a compile is why the others wait."""

TIMELINE_TYPES = frozenset(
    {
        EventType.RUN_START,
        EventType.ARM_START,
        EventType.READY,
        EventType.HELLO,
        EventType.PHASE,
        EventType.LOADED,
        EventType.STEPS,  # the warm-up's only: its end (the process then waits for its blocks)
        EventType.BLOCK_DONE,
        EventType.BS_DONE,
        EventType.ACCURACY,
        EventType.CACHE_SAVED,
        EventType.WORKER_EXIT,
        EventType.RUN_END,
    }
)
"""The events whose time a timeline needs (`fold` keeps a small copy of each)."""

PREFLIGHT = "preflight check"
"""What the run checked before any arm ran (run/preflight.py: a backend or device asked of a
worker forked from the fork server, which imports torch first): before `t` 0, in start-up, on a
lane of its own (the engine's); every other span comes after it."""
PREFLIGHT_LANE = ("tcprof", "preflight")  # its lane's name and round

CPU_CHECK = "inductor's CPU check"
"""Inductor's once-per-machine CPU check, run before the compile (worker/cpu_check.py): the
last part of a compiled arm's model load, in start-up, never in a compile."""

_PHASES: dict[str, tuple[str, str]] = {
    Phase.LOADING: ("model load", STARTUP),
    Phase.EXPLAIN: ("explain pass", OTHER),
    Phase.COMPILING: ("compile", COMPILING),
    Phase.FIRST_STEP: ("first step", OTHER),
    Phase.WARMUP: ("warm-up", OTHER),
    Phase.MEASURING: ("block", MEASUREMENT),
    Phase.PROFILING: ("profile pass", OTHER),
    Phase.ACCURACY: ("accuracy check", ACCURACY),
}
# what a process is doing after a mark that is not a phase (None: idle, waiting for a command)
_AFTER: dict[str, tuple[str, str] | None] = {
    EventType.ARM_START: ("process start", STARTUP),
    EventType.READY: ("imports", STARTUP),
    EventType.HELLO: ("imports", STARTUP),
    EventType.LOADED: None,
    EventType.STEPS: None,
    EventType.BLOCK_DONE: None,
    EventType.BS_DONE: None,
    EventType.ACCURACY: None,
    EventType.CACHE_SAVED: None,
}
# marks that end a command begun while the process was idle: it began at the run's previous
# mark (the engine gives its processes one command at a time)
_ENDS_COMMAND: dict[str, tuple[str, str]] = {
    EventType.BS_DONE: ("memory pass", OTHER),
    EventType.CACHE_SAVED: ("saving the compile cache", OTHER),
    EventType.WORKER_EXIT: ("exit", OTHER),
}


@dataclass(frozen=True)
class Mark:
    """The small copy of an event a timeline keeps (`fold` keeps one per event it needs): its
    type and time, the process (arm, round), and what the span it ends or starts needs."""

    type: str | None
    t: float
    arm: int | None = None
    replicate: int | str | None = None
    phase: str | None = None
    batch_size: int | None = None
    cache: str | None = None  # the compile cache a process started with (cold, warm, ...)
    waited_s: float | None = None  # a block's wait for a quiet machine
    random_wait_s: float | None = None  # a block's random wait (run/draws.py)
    cpu_check_s: float | None = None  # the end of the model load (worker/cpu_check.py)
    preflight_s: float | None = None  # the check before the run's start (run/preflight.py)


@dataclass
class _Span:
    """A span of a lane as it is built; `count`: the blocks a compacted span holds."""

    start: float
    end: float
    what: str
    category: str
    batch_size: int | None
    count: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "start": self.start,
            "end": self.end,
            "what": self.what,
            "category": self.category,
        }
        if self.batch_size is not None:
            out["batch_size"] = self.batch_size
        if self.count is not None:
            out["count"] = self.count
        return out


@dataclass
class _Lane:
    """One process: an arm in a round (`round` "accuracy": its untimed accuracy process)."""

    arm: int
    name: str
    round: int | str
    cache: str | None
    spans: list[_Span] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "arm": self.arm,
            "name": self.name,
            "round": self.round,
            "cache": self.cache,
            "spans": [span.to_json() for span in self.spans],
        }


LaneKey = tuple[int, int | str]


def build_timeline(marks: Sequence[Mark], arm_names: Sequence[str]) -> dict[str, Any]:
    """session.json's `timeline` (docs/session-format.md): lanes of spans and the totals."""
    preflight = _preflight_s(marks)
    ordered = sorted((replace(m, t=m.t + preflight) for m in marks), key=lambda m: m.t)
    lanes: dict[LaneKey, _Lane] = {}
    if preflight > 0:
        name, where = PREFLIGHT_LANE
        lanes[(-1, where)] = _Lane(-1, name, where, None)
        _add(lanes[(-1, where)], 0.0, preflight, PREFLIGHT, STARTUP, None)
    open_span: dict[LaneKey, tuple[float, tuple[str, str] | None]] = {}
    previous_t = 0.0
    end = 0.0
    for mark in ordered:
        t, kind = mark.t, mark.type
        key = _lane_key(mark)
        if kind == EventType.RUN_END:
            end = t
        if key is None:
            previous_t = t
            continue
        if kind == EventType.ARM_START:
            lanes[key] = _new_lane(key, mark, arm_names)
            open_span[key] = (t, _AFTER[EventType.ARM_START])
            previous_t = t
            continue
        lane = lanes.get(key)
        if lane is None:
            previous_t = t
            continue
        begun, doing = open_span.get(key, (t, None))
        ends = _ENDS_COMMAND.get(kind or "")
        if doing is None and ends is not None:
            begun, doing = max(begun, previous_t), ends
        _close(lane, begun, t, doing, mark)
        open_span[key] = (t, _doing_after(mark))
        if kind == EventType.WORKER_EXIT:
            open_span.pop(key, None)
        previous_t = t
    end = max(end, previous_t)
    for key, (begun, doing) in open_span.items():  # a process the run's end cut short
        _close(lanes[key], begun, end, doing, None)
    out_lanes = list(lanes.values())
    for lane in out_lanes:
        _categorise_accuracy_lane(lane)
    totals = _totals(out_lanes, end)
    for lane in out_lanes:  # after the totals, which count each wait in its own category
        lane.spans = _compact(lane.spans)
    return {
        "wall_s": round(end, 3),
        "totals": {k: round(v, 3) for k, v in totals.items()},
        "gaps_s": round(_gaps(out_lanes, end), 3),
        "lanes": [lane.to_json() for lane in out_lanes],
    }


BLOCK_CYCLE = ("random wait", "quiet-machine wait", "block")


def _compact(spans: list[_Span]) -> list[_Span]:
    """A lane's consecutive blocks at one batch size, their waits between them included, as one
    span `blocks` (`count` of them): a run of 40 blocks would otherwise write 120 spans, making
    session.json larger than the event log it comes from. The chart loses the waits' slivers
    (tens of milliseconds); the totals, taken before, keep them."""
    out: list[_Span] = []
    for span in spans:
        last = out[-1] if out else None
        if (
            span.what in BLOCK_CYCLE
            and last is not None
            and last.what == "blocks"
            and last.batch_size == span.batch_size
        ):
            last.end = span.end
            last.count = (last.count or 0) + (span.what == "block")
            continue
        if span.what in BLOCK_CYCLE:
            out.append(
                replace(span, what="blocks", category=MEASUREMENT, count=int(span.what == "block"))
            )
            continue
        out.append(span)
    return out


def _preflight_s(marks: Iterable[Mark]) -> float:
    """The check before the run's start: the events' `t` count from after it."""
    found = (m.preflight_s for m in marks if m.type == EventType.RUN_START and m.preflight_s)
    return max(next(found, 0.0) or 0.0, 0.0)


def _lane_key(mark: Mark) -> LaneKey | None:
    if mark.arm is None:
        return None
    return mark.arm, mark.replicate if mark.replicate is not None else 0


def _new_lane(key: LaneKey, mark: Mark, arm_names: Sequence[str]) -> _Lane:
    arm, rep = key
    name = arm_names[arm] if 0 <= arm < len(arm_names) else f"arm {arm}"
    return _Lane(arm, name, rep, mark.cache)


def _doing_after(mark: Mark) -> tuple[str, str] | None:
    if mark.type == EventType.PHASE:
        return _PHASES.get(str(mark.phase))  # idle, or a phase this tcprof does not know
    return _AFTER.get(str(mark.type))


def _close(
    lane: _Lane, begun: float, t: float, doing: tuple[str, str] | None, mark: Mark | None
) -> None:
    """The span that ends at `t` (`mark`: None where the run's end cut it short): a block
    splits into its waits and its timed part."""
    if doing is None or t <= begun:
        return
    what, category = doing
    if what == "compile" and lane.cache:
        what = f"{lane.cache} compile"
    check = min(max((mark.cpu_check_s if mark else None) or 0.0, 0.0), t - begun)
    if what == "model load" and check > 0:
        _add(lane, begun, t - check, what, category, mark)
        what, begun = CPU_CHECK, t - check
    if category == MEASUREMENT and mark is not None and mark.type == EventType.BLOCK_DONE:
        for label, waited, cat in (
            ("random wait", mark.random_wait_s, OTHER),
            ("quiet-machine wait", mark.waited_s, WAITING),
        ):
            wait = min(max(waited or 0.0, 0.0), t - begun)
            if wait > 0:
                _add(lane, begun, begun + wait, label, cat, mark)
                begun += wait
    _add(lane, begun, t, what, category, mark)


def _add(
    lane: _Lane, start: float, end: float, what: str, category: str, mark: Mark | None
) -> None:
    batch_size = mark.batch_size if mark is not None else None
    lane.spans.append(_Span(round(start, 4), round(end, 4), what, category, batch_size))


def _categorise_accuracy_lane(lane: _Lane) -> None:
    """The untimed accuracy process is the accuracy pass's cost, its start-up and compile too."""
    if isinstance(lane.round, str) and lane.arm >= 0:  # an arm's, not the engine's preflight
        for span in lane.spans:
            span.category = ACCURACY


def _totals(lanes: Iterable[_Lane], end: float) -> dict[str, float]:
    """The run's wall time by category: each instant to the first of PRIORITY any process was
    doing; an instant no process accounts for is "other"."""
    edges: list[tuple[float, int, str]] = []  # (time, +1 starts / -1 ends, category)
    for lane in lanes:
        for span in lane.spans:
            edges.append((span.start, 1, span.category))
            edges.append((span.end, -1, span.category))
    edges.sort(key=lambda e: (e[0], e[1]))
    totals = dict.fromkeys(CATEGORIES, 0.0)
    active = dict.fromkeys(CATEGORIES, 0)
    now = 0.0
    for t, step, category in edges:
        t = min(max(t, 0.0), end)
        if t > now:
            totals[_leading(active)] += t - now
            now = t
        active[category] += step
    if end > now:
        totals[OTHER] += end - now
    return totals


def _leading(active: dict[str, int]) -> str:
    return next((c for c in PRIORITY if active[c] > 0), OTHER)


def _gaps(lanes: Iterable[_Lane], end: float) -> float:
    """Seconds no process was doing anything: the engine's own time."""
    spans = sorted((s.start, s.end) for lane in lanes for s in lane.spans)
    covered, reach = 0.0, 0.0
    for start, stop in spans:
        start, stop = max(start, reach), min(stop, end)
        if stop > start:
            covered += stop - start
            reach = stop
    return max(0.0, end - covered)


def totals_line(timeline: Timeline | None) -> list[tuple[str, float]]:
    """The totals worth a word, largest first (the summaries write them through units), from
    the timeline the session saved (model/timeline.py)."""
    if timeline is None:
        return []
    pairs = [(c, timeline.total(c)) for c in CATEGORIES]
    return sorted((p for p in pairs if p[1] >= 0.5), key=lambda p: -p[1])
