"""Inductor's once-per-machine CPU check, run by the worker at the end of its model load, is
its own span in start-up: never in the compile that follows (worker/cpu_check.py)."""

from __future__ import annotations

import pytest

from tcprof.profiler.analysis.timeline import (
    COMPILING,
    CPU_CHECK,
    STARTUP,
    build_timeline,
)
from tcprof.profiler.session.marks import timeline_mark

pytestmark = pytest.mark.timeout(30)


def _mark(t: float, kind: str, **fields) -> dict:
    event = {"type": kind, "t": t, "arm": 0, "replicate": 0, **fields}
    mark = timeline_mark(event)
    assert mark is not None
    return mark


def test_the_check_is_the_end_of_the_model_load_and_not_the_compile() -> None:
    """Load 1-5 s, the check its last 3 s (known by construction), compile 5-9 s."""
    check = {"seconds": 3.0, "built": True, "first_s": 3.0}
    marks = [
        _mark(0.0, "arm_start", cache="cold"),
        _mark(1.0, "phase", phase="loading"),
        _mark(5.0, "loaded", cpu_check=check),
        _mark(5.0, "phase", phase="compiling", batch_size=8),
        _mark(9.0, "phase", phase="warmup", batch_size=8),
        _mark(10.0, "worker_exit"),
    ]
    timeline = build_timeline(marks, ["inductor"])
    spans = [(s["what"], s["start"], s["end"]) for s in timeline["lanes"][0]["spans"]]
    assert spans[:4] == [
        ("process start", 0.0, 1.0),
        ("model load", 1.0, 2.0),
        (CPU_CHECK, 2.0, 5.0),
        ("cold compile", 5.0, 9.0),
    ]
    assert timeline["totals"][COMPILING] == pytest.approx(4.0)
    assert timeline["totals"][STARTUP] == pytest.approx(5.0)


def test_a_load_without_the_check_is_one_span() -> None:
    marks = [
        _mark(0.0, "arm_start", cache=None),
        _mark(1.0, "phase", phase="loading"),
        _mark(2.0, "loaded"),
    ]
    spans = build_timeline(marks, ["eager"])["lanes"][0]["spans"]
    assert [s["what"] for s in spans] == ["process start", "model load"]
