"""Where a run's time went: each process's spans (start-up, compiles, blocks, the untimed
passes, the waits for a quiet machine) and the run's wall time by category, from the timestamps
its events already carry (the `t` the engine adds when it relays one).

A pure function over the run's timeline marks (`fold` keeps them: `TIMELINE_TYPES`). A lane is
one process: an arm in a round, or the arm's untimed accuracy process. Within a lane each mark
ends what the process was doing and starts what the mark announces. Processes of a round run
side by side (they load in parallel), so the run's totals are not the lanes' sums: at each
instant the run's time goes to the most important thing any process was doing
(`PRIORITY`), and to "other" where none was doing anything (the engine's own gaps: between
processes, between rounds, the reports). The totals therefore add up to the run's wall time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

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
MARK_FIELDS = ("type", "arm", "replicate", "t", "phase", "batch_size", "cache", "waited_s")
RANDOM_WAIT_FIELDS = ("random_wait_s",)  # block_done: the engine's random wait (run/draws.py)
"""A block's random wait before it starts (issue 42's seeds), under whichever name it has: not
timed, so not measurement."""

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
_ENDS_COMMAND = {
    EventType.BS_DONE: ("memory pass", OTHER),
    EventType.CACHE_SAVED: ("saving the compile cache", OTHER),
    EventType.WORKER_EXIT: ("exit", OTHER),
}


def timeline_mark(event: dict[str, Any]) -> dict[str, Any] | None:
    """The small copy of an event a timeline keeps, or None for an event it does not need."""
    if event.get("type") not in TIMELINE_TYPES or not isinstance(event.get("t"), (int, float)):
        return None
    if event.get("type") == EventType.STEPS and event.get("phase") != "warmup":
        return None  # a block's steps: its block_done ends it
    mark = {k: event[k] for k in MARK_FIELDS if event.get(k) is not None}
    for name in RANDOM_WAIT_FIELDS:
        if isinstance(event.get(name), (int, float)):
            mark["random_wait_s"] = event[name]
    check = event.get("cpu_check") if event.get("type") == EventType.LOADED else None
    if isinstance(check, dict) and isinstance(check.get("seconds"), (int, float)):
        mark["cpu_check_s"] = check["seconds"]  # the end of the model load (worker/cpu_check.py)
    return mark


def build_timeline(marks: Sequence[dict[str, Any]], arm_names: Sequence[str]) -> dict[str, Any]:
    """session.json's `timeline` (docs/session-format.md): lanes of spans and the totals."""
    ordered = sorted((m for m in marks if isinstance(m.get("t"), (int, float))), key=_t)
    lanes: dict[tuple[int, int | str], dict[str, Any]] = {}
    open_span: dict[tuple[int, int | str], tuple[float, tuple[str, str] | None]] = {}
    previous_t = 0.0
    end = 0.0
    for mark in ordered:
        t = float(mark["t"])
        kind = mark.get("type")
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
        if doing is None and kind in _ENDS_COMMAND:
            begun, doing = max(begun, previous_t), _ENDS_COMMAND[kind]
        _close(lane, begun, t, doing, mark)
        open_span[key] = (t, _doing_after(mark))
        if kind == EventType.WORKER_EXIT:
            open_span.pop(key, None)
        previous_t = t
    end = max(end, previous_t)
    for key, (begun, doing) in open_span.items():  # a process the run's end cut short
        _close(lanes[key], begun, end, doing, {})
    out_lanes = list(lanes.values())
    for lane in out_lanes:
        _categorise_accuracy_lane(lane)
    totals = _totals(out_lanes, end)
    for lane in out_lanes:  # after the totals, which count each wait in its own category
        lane["spans"] = _compact(lane["spans"])
    return {
        "wall_s": round(end, 3),
        "totals": {k: round(v, 3) for k, v in totals.items()},
        "gaps_s": round(_gaps(out_lanes, end), 3),
        "lanes": out_lanes,
    }


BLOCK_CYCLE = ("random wait", "quiet-machine wait", "block")


def _compact(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A lane's consecutive blocks at one batch size, their waits between them included, as one
    span `blocks` (`count` of them): a run of 40 blocks would otherwise write 120 spans, making
    session.json larger than the event log it comes from. The chart loses the waits' slivers
    (tens of milliseconds); the totals, taken before, keep them."""
    out: list[dict[str, Any]] = []
    for span in spans:
        last = out[-1] if out else None
        if (
            span["what"] in BLOCK_CYCLE
            and last is not None
            and last.get("what") == "blocks"
            and (last.get("batch_size") == span.get("batch_size"))
        ):
            last["end"] = span["end"]
            last["count"] += span["what"] == "block"
            continue
        if span["what"] in BLOCK_CYCLE:
            merged = {**span, "what": "blocks", "category": MEASUREMENT}
            merged["count"] = int(span["what"] == "block")
            out.append(merged)
            continue
        out.append(span)
    return out


def _t(mark: dict[str, Any]) -> float:
    return float(mark["t"])


def _lane_key(mark: dict[str, Any]) -> tuple[int, int | str] | None:
    arm, rep = mark.get("arm"), mark.get("replicate")
    if not isinstance(arm, int):
        return None
    return arm, rep if isinstance(rep, (int, str)) else 0


def _new_lane(
    key: tuple[int, int | str], mark: dict[str, Any], arm_names: Sequence[str]
) -> dict[str, Any]:
    arm, rep = key
    name = arm_names[arm] if 0 <= arm < len(arm_names) else f"arm {arm}"
    return {"arm": arm, "name": name, "round": rep, "cache": mark.get("cache"), "spans": []}


def _doing_after(mark: dict[str, Any]) -> tuple[str, str] | None:
    kind = mark.get("type")
    if kind == EventType.PHASE:
        return _PHASES.get(str(mark.get("phase")))  # idle, or a phase this tcprof does not know
    return _AFTER.get(str(kind))


def _close(
    lane: dict[str, Any],
    begun: float,
    t: float,
    doing: tuple[str, str] | None,
    mark: dict[str, Any],
) -> None:
    """The span that ends at `t`: a block splits into its waits and its timed part."""
    if doing is None or t <= begun:
        return
    what, category = doing
    if what == "compile" and lane.get("cache"):
        what = f"{lane['cache']} compile"
    check = min(max(float(mark.get("cpu_check_s") or 0.0), 0.0), t - begun)
    if what == "model load" and check > 0:
        _add(lane, begun, t - check, what, category, mark)
        what, begun = CPU_CHECK, t - check
    if category == MEASUREMENT and mark.get("type") == EventType.BLOCK_DONE:
        for label, field, cat in (
            ("random wait", "random_wait_s", OTHER),
            ("quiet-machine wait", "waited_s", WAITING),
        ):
            wait = min(max(float(mark.get(field) or 0.0), 0.0), t - begun)
            if wait > 0:
                _add(lane, begun, begun + wait, label, cat, mark)
                begun += wait
    _add(lane, begun, t, what, category, mark)


def _add(
    lane: dict[str, Any], start: float, end: float, what: str, category: str, mark: dict[str, Any]
) -> None:
    span: dict[str, Any] = {
        "start": round(start, 4),
        "end": round(end, 4),
        "what": what,
        "category": category,
    }
    if mark.get("batch_size") is not None:
        span["batch_size"] = mark["batch_size"]
    lane["spans"].append(span)


def _categorise_accuracy_lane(lane: dict[str, Any]) -> None:
    """The untimed accuracy process is the accuracy pass's cost, its start-up and compile too."""
    if isinstance(lane["round"], str):
        for span in lane["spans"]:
            span["category"] = ACCURACY


def _totals(lanes: Iterable[dict[str, Any]], end: float) -> dict[str, float]:
    """The run's wall time by category: each instant to the first of PRIORITY any process was
    doing; an instant no process accounts for is "other"."""
    edges: list[tuple[float, int, str]] = []  # (time, +1 starts / -1 ends, category)
    for lane in lanes:
        for span in lane["spans"]:
            edges.append((span["start"], 1, span["category"]))
            edges.append((span["end"], -1, span["category"]))
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


def _gaps(lanes: Iterable[dict[str, Any]], end: float) -> float:
    """Seconds no process was doing anything: the engine's own time."""
    spans = sorted((s["start"], s["end"]) for lane in lanes for s in lane["spans"])
    covered, reach = 0.0, 0.0
    for start, stop in spans:
        start, stop = max(start, reach), min(stop, end)
        if stop > start:
            covered += stop - start
            reach = stop
    return max(0.0, end - covered)


def totals_line(timeline: dict[str, Any] | None) -> list[tuple[str, float]]:
    """The totals worth a word, largest first (the summaries write them through units)."""
    totals = (timeline or {}).get("totals") or {}
    pairs = [(c, float(totals.get(c) or 0.0)) for c in CATEGORIES]
    return sorted((p for p in pairs if p[1] >= 0.5), key=lambda p: -p[1])
