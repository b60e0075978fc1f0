"""Where a run's time went (profiler/analysis/timeline.py): lanes and totals from a scripted
fake-worker run, and totals checked against marks whose answer is known by construction."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tcprof.profiler.analysis.timeline import (
    ACCURACY,
    CATEGORIES,
    COMPILING,
    MEASUREMENT,
    OTHER,
    STARTUP,
    WAITING,
    build_timeline,
    totals_line,
)
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.model.timeline import Timeline
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.run.runner import Runner
from tcprof.profiler.session.marks import timeline_mark
from tests.support import fake_worker
from tests.support.fake_worker import ArmScript, FakeWorkers

pytestmark = pytest.mark.timeout(30)


def _slowed(handler: Callable[..., None], seconds: float) -> Callable[..., None]:
    """A fake worker's command that takes a moment, as a real one does (the fake answers at
    once, and spans shorter than the events' 0.1 ms resolution are none)."""

    def slow(worker: Any, cmd: dict[str, Any], fault: Any) -> None:
        time.sleep(seconds)
        handler(worker, cmd, fault)

    return slow


def _fake_run(monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    for name, seconds in (("load", 0.02), ("prepare", 0.03)):
        monkeypatch.setitem(
            fake_worker._HANDLERS, name, _slowed(fake_worker._HANDLERS[name], seconds)
        )
    config = RunConfig(
        source=ModelSource("model.py"),  # never read: the fake workers load nothing
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(8,),
        warmup=1,
        steps=4,
        blocks=2,
        replicates=2,
        min_block_ms=0,
        threads=1,
        accuracy=True,
        timeout_s=10,
    )
    events: list[dict[str, Any]] = []
    fakes = FakeWorkers({1: ArmScript(compile_s=0.5)})
    session = Runner(config, listeners=[events.append], worker_factory=fakes).run()
    return session.to_dict(), events


# A mark's `t` is when the engine relays the event. A fake worker's command runs inside the
# runner's `send`, so a block's `phase`, steps and `block_done` are all relayed after it, and the
# block has a length only when the relaying happens to cross a 0.1 ms tick: under load often not
# (the baseline's round-0 lane had no block span in a loaded parallel pass, then in a serial one;
# 1 run in 40 beside three busy loops; a compile's span too, under heavier load). What a span is
# called is therefore checked on marks built by hand (the compile's, the blocks' compaction),
# and here only what holds whatever the relay times: the lanes, their caches, the totals.
@pytest.mark.serial
def test_a_fake_run_has_a_lane_per_process_and_totals_that_add_up_to_its_wall_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data, events = _fake_run(monkeypatch)
    timeline = data["timeline"]
    lanes = {(lane["name"], lane["round"]) for lane in timeline["lanes"]}
    assert lanes == {
        ("eager", 0),
        ("aot_eager", 0),
        ("eager", 1),
        ("aot_eager", 1),
        ("aot_eager", "accuracy"),
    }
    whats = {
        (lane["name"], lane["round"], s["what"])
        for lane in timeline["lanes"]
        for s in lane["spans"]
    }
    caches = {(lane["name"], lane["round"]): lane["cache"] for lane in timeline["lanes"]}
    assert caches[("aot_eager", 0)] == "cold" and caches[("aot_eager", 1)] == "warm"
    assert not any(what == "block" for _, _, what in whats)  # only compacted, where any
    accuracy_lane = next(lane for lane in timeline["lanes"] if lane["round"] == "accuracy")
    assert {s["category"] for s in accuracy_lane["spans"]} == {ACCURACY}  # its start-up too
    assert timeline["totals"][ACCURACY] > 0
    run_end = next(e["t"] for e in events if e["type"] == "run_end")
    assert timeline["wall_s"] == pytest.approx(run_end, abs=1e-3)
    assert set(timeline["totals"]) == set(CATEGORIES)
    assert sum(timeline["totals"].values()) == pytest.approx(timeline["wall_s"], abs=0.01)
    for lane in timeline["lanes"]:  # spans in order, none overlapping within a process
        ends = [(s["start"], s["end"]) for s in lane["spans"]]
        assert all(a <= b for a, b in ends)
        assert all(ends[i][1] <= ends[i + 1][0] + 1e-6 for i in range(len(ends) - 1))
    assert session_problem(data) is None


def _mark(
    t: float, kind: str, arm: int | None = None, rep: int | str = 0, **fields: Any
) -> dict[str, Any]:
    event = {"type": kind, "t": t, **fields}
    if arm is not None:
        event.update(arm=arm, replicate=rep)
    mark = timeline_mark(event)
    assert mark is not None
    return mark


def test_totals_match_a_run_whose_answer_is_known_by_construction() -> None:
    """Two processes load side by side (start-up 0-3 s, overlapping), arm 1 compiles 3-8 s while
    arm 0 idles, blocks of 2 s each after a 0.5 s quiet-machine wait, an engine gap, an
    accuracy process (2 s), then the run's end at 20 s."""
    marks = [
        _mark(0.0, "run_start"),
        _mark(0.5, "arm_start", 0, cache=None),
        _mark(1.0, "arm_start", 1, cache="cold"),
        _mark(2.0, "ready", 0),
        _mark(2.5, "hello", 0),
        _mark(2.5, "phase", 0, phase="loading"),
        _mark(3.0, "loaded", 0),
        _mark(3.0, "phase", 1, phase="loading"),
        _mark(3.0, "loaded", 1),
        _mark(3.0, "phase", 1, phase="compiling", batch_size=8),
        _mark(8.0, "phase", 1, phase="warmup", batch_size=8),
        _mark(8.5, "steps", 1, phase="warmup", batch_size=8),  # then it waits for its block
        _mark(9.0, "phase", 0, phase="measuring", batch_size=8),
        _mark(11.0, "block_done", 0, batch_size=8, waited_s=0.5),
        _mark(11.0, "phase", 1, phase="measuring", batch_size=8),
        _mark(13.0, "block_done", 1, batch_size=8, waited_s=0.5, random_wait_s=0.25),
        _mark(13.5, "worker_exit", 0),
        _mark(14.0, "worker_exit", 1),
        _mark(16.0, "arm_start", 1, "accuracy", cache="warm"),
        _mark(17.0, "phase", 1, "accuracy", phase="accuracy", batch_size=8),
        _mark(18.0, "worker_exit", 1, "accuracy"),
        _mark(20.0, "run_end"),
    ]
    timeline = build_timeline(marks, ["eager", "inductor"])
    totals = timeline["totals"]
    assert timeline["wall_s"] == 20.0
    inductor = next(lane for lane in timeline["lanes"] if lane["round"] == 0 and lane["arm"] == 1)
    assert ("cold compile", 3.0, 8.0) in [
        (s["what"], s["start"], s["end"]) for s in inductor["spans"]
    ]
    assert totals[MEASUREMENT] == pytest.approx(1.5 + 1.25)
    assert totals[WAITING] == pytest.approx(0.5 + 0.5)
    assert totals[COMPILING] == pytest.approx(5.0)
    assert totals[ACCURACY] == pytest.approx(2.0)
    assert totals[STARTUP] == pytest.approx(2.5)  # 0.5-3.0: both processes' start-up, once
    # the rest: before the first process, the warm-up (8-8.5) and the idle wait for the block
    # (8.5-9), the random wait, the exits, the engine's gap between the round and the accuracy
    # process, and the end
    assert totals[OTHER] == pytest.approx(0.5 + 0.5 + 0.5 + 0.25 + 1.0 + 2.0 + 2.0)
    assert sum(totals.values()) == pytest.approx(20.0)
    assert timeline["gaps_s"] == pytest.approx(0.5 + 0.5 + 2.0 + 2.0)
    assert [c for c, _ in totals_line(Timeline.of(timeline))][:3] == [OTHER, COMPILING, MEASUREMENT]


def test_consecutive_blocks_are_one_span_with_their_count() -> None:
    """Three blocks of one process at one batch size, their waits between them: one span
    `blocks` of count 3 in the lane; the totals keep the waits in their own categories."""
    marks = [
        _mark(0.0, "run_start"),
        _mark(0.0, "arm_start", 0, cache=None),
        _mark(1.0, "loaded", 0),
        _mark(1.0, "phase", 0, phase="measuring", batch_size=8),
        _mark(2.0, "block_done", 0, batch_size=8, random_wait_s=0.25),
        _mark(2.0, "phase", 0, phase="measuring", batch_size=8),
        _mark(3.0, "block_done", 0, batch_size=8, waited_s=0.5),
        _mark(3.0, "phase", 0, phase="measuring", batch_size=8),
        _mark(4.0, "block_done", 0, batch_size=8),
        _mark(4.5, "worker_exit", 0),
        _mark(5.0, "run_end"),
    ]
    timeline = build_timeline(marks, ["eager"])
    (lane,) = timeline["lanes"]
    blocks = [s for s in lane["spans"] if s["what"] == "blocks"]
    assert [(s["start"], s["end"], s["count"]) for s in blocks] == [(1.0, 4.0, 3)]
    assert timeline["totals"][MEASUREMENT] == pytest.approx(3.0 - 0.25 - 0.5)
    assert timeline["totals"][WAITING] == pytest.approx(0.5)


def test_a_session_without_its_marks_has_no_timeline_and_a_missing_one_reads_as_nothing() -> None:
    assert totals_line(None) == []
    assert totals_line(Timeline.of({})) == []
    assert build_timeline([], [])["lanes"] == []
