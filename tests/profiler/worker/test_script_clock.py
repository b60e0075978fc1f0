"""A script's steps timed with CUDA events, on the CPU: stand-in events that keep the time they
were recorded at, so the marks' pairing, their reuse and the one synchronisation per read are
checked without a GPU (the GPU itself waits for a machine with one)."""

from __future__ import annotations

import time

import pytest

from tcprof.profiler.worker.script import clock as script_clock
from tcprof.profiler.worker.script import steps as script_steps
from tests.support.paths import ROOT
from tests.support.script_harness import of_type, schedule, script_config, serve

pytestmark = pytest.mark.timeout(120, method="thread")


class Event:
    """A timing event: the time of its last record."""

    def __init__(self) -> None:
        self.at: float | None = None

    def record(self) -> None:
        self.at = time.perf_counter()

    def elapsed_time(self, end: Event) -> float:
        assert self.at is not None and end.at is not None
        return (end.at - self.at) * 1000.0


def test_cuda_marks_pair_up_and_are_read_once_per_block(monkeypatch):
    syncs: list[int] = []
    made: list[Event] = []

    def factory() -> Event:
        made.append(Event())
        return made[-1]

    clock = script_clock.CudaClock(factory, lambda: syncs.append(1))
    monkeypatch.setattr(script_steps, "clock_for_script", lambda: clock)  # as if CUDA ran
    cfg = script_config(ROOT / "tests" / "support" / "scripts" / "guide_1x.py")
    events = serve(schedule(cfg))
    steps = of_type(events, "steps")
    assert [e["phase"] for e in steps] == ["warmup", "measure", "measure"]
    # one synchronisation to read the first step, then one per flush: none inside a block
    assert len(syncs) == 1 + len(steps)
    assert all(ms >= 0 for e in steps for ms in e["ms"]) and all(
        v >= 0 for e in steps for v in e["own_ms"]
    )
    assert len(made) < 3 * 8  # events come back to the pool and are reused
