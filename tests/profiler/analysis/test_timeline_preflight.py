"""The check before any arm runs (run/preflight.py: the fork server imports torch for its probe,
about 4 s of a CLI run) is its own span in start-up, on the engine's lane, before round 0: the
run's wall time and its totals count it, and no span of an arm overlaps it."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tcprof.profiler.analysis.timeline import (
    COMPILING,
    PREFLIGHT,
    STARTUP,
    build_timeline,
)
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.run.recorded import RecordedRun
from tcprof.profiler.run.runner import Runner
from tcprof.profiler.session.marks import timeline_mark
from tests.support.fake_worker import FakeWorkers

pytestmark = pytest.mark.timeout(30)


def _mark(t: float, kind: str, arm: int | None = None, **fields: Any) -> Any:
    event = {"type": kind, "t": t, **fields}
    if arm is not None:
        event.update(arm=arm, replicate=0)
    mark = timeline_mark(event)
    assert mark is not None
    return mark


def test_the_preflight_comes_first_and_counts_in_start_up() -> None:
    """A 4 s check, then (the events' own clock) a process starting at 0.5 s, loading 1-3 s,
    compiling 3-8 s, ending at 9 s and the run at 10 s: known by construction."""
    marks = [
        _mark(0.0, "run_start", preflight_s=4.0),
        _mark(0.5, "arm_start", 0, cache="cold"),
        _mark(1.0, "phase", 0, phase="loading"),
        _mark(3.0, "loaded", 0),
        _mark(3.0, "phase", 0, phase="compiling", batch_size=8),
        _mark(8.0, "phase", 0, phase="warmup", batch_size=8),
        _mark(9.0, "worker_exit", 0),
        _mark(10.0, "run_end"),
    ]
    timeline = build_timeline(marks, ["inductor"])
    engine, arm = timeline["lanes"]
    assert (engine["name"], engine["round"]) == ("tcprof", "preflight")
    assert engine["spans"] == [{"start": 0.0, "end": 4.0, "what": PREFLIGHT, "category": STARTUP}]
    assert arm["spans"][0]["start"] == 4.5  # every arm's span after it
    assert timeline["wall_s"] == 14.0
    totals = timeline["totals"]
    assert totals[STARTUP] == pytest.approx(4.0 + 0.5 + 2.0)  # the check, process start, load
    assert totals[COMPILING] == pytest.approx(5.0)
    assert sum(totals.values()) == pytest.approx(14.0)


def test_a_run_without_a_preflight_has_no_lane_for_it() -> None:
    marks = [_mark(0.0, "run_start"), _mark(1.0, "run_end")]
    assert build_timeline(marks, [])["lanes"] == []
    assert build_timeline(marks, [])["wall_s"] == 1.0


def test_a_recorded_run_times_its_check_into_its_timeline(tmp_path) -> None:
    """The engine's runner, with scripted fake workers and a check that takes a moment."""
    config = RunConfig(
        source=ModelSource("model.py"),  # never read: the fake workers load nothing
        arms=(ArmSpec("eager"),),
        batch_sizes=(8,),
        warmup=1,
        steps=2,
        blocks=1,
        replicates=1,
        min_block_ms=0,
        threads=1,
        accuracy=False,
        timeout_s=10,
    )

    def check(_config: RunConfig) -> None:
        time.sleep(0.05)  # the probe's work, stood in for

    def runner(cfg: RunConfig, listeners: list) -> Runner:
        return Runner(cfg, listeners=listeners, worker_factory=FakeWorkers({}))

    events: list[dict[str, Any]] = []
    recorded = RecordedRun(
        config, tmp_path / "out", listeners=[events.append], runner_factory=runner, check=check
    )
    session = recorded.run().to_dict()
    recorded.release()
    preflight = events[0]["preflight_s"]
    assert events[0]["type"] == "run_start" and 0.05 <= preflight < 5
    lanes = session["timeline"]["lanes"]
    assert lanes[0]["spans"][0]["end"] == pytest.approx(preflight, abs=1e-3)
    assert min(s["start"] for lane in lanes[1:] for s in lane["spans"]) >= preflight
    assert session_problem(session) is None  # the engine's lane is session.json's too
