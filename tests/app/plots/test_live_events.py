"""Run events parsed once at the plots' edge into typed records (live_events.py), and a saved
session's plots laid out from the typed session model."""

from __future__ import annotations

import pytest

from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.live_events import (
    ArmsAdded,
    BlockDone,
    Compile,
    Memory,
    Phase,
    Steps,
    Summary,
    parse,
)
from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.session import SessionModel

pytestmark = pytest.mark.timeout(60)


def test_each_event_the_plots_draw_is_one_typed_record():
    where = {"arm": 1, "batch_size": 8, "replicate": 2, "t": 3}
    steps = parse(
        {"type": "steps", **where, "start": 4, "ms": [1.0, 2.0], "block": 0, "loss": [0.5, None]}
    )
    assert isinstance(steps, Steps) and (steps.where.arm, steps.where.round) == (1, 2)
    assert (steps.where.t, steps.start, list(steps.ms), steps.block) == (3.0, 4, [1.0, 2.0], 0)
    assert steps.scripted and steps.loss == [0.5, None] and steps.own_ms is None
    untimed = parse({"type": "memory", "arm": 0, "replicate": "accuracy", "rss_mb": 5})
    assert isinstance(untimed, Memory) and untimed.where.untimed and untimed.rss_mb == 5.0
    compiled = parse({"type": "compile", "arm": 0, "compile_id": "0/0", "seconds": 1, "frame": 3})
    assert isinstance(compiled, Compile) and compiled.timer and compiled.kind == "first"
    assert compiled.seconds == 1.0 and compiled.frame is None, "a frame is a text or nothing"
    done = parse({"type": "block_done", "arm": 0, "block": 1, "steps": 9, "contended": True})
    assert isinstance(done, BlockDone) and done.contended and done.busy_elsewhere == 0.0
    phase = parse({"type": "phase", "arm": 0, "phase": "compiling", "batch_size": 8})
    assert isinstance(phase, Phase) and phase.phase == "compiling"
    ended = parse({"type": "worker_exit", "arm": 0})
    assert isinstance(ended, Phase) and ended.phase is None and not ended.first_step
    added = parse({"type": "arms_added", "arms": [{"backend": "inductor"}, "not an arm"]})
    assert isinstance(added, ArmsAdded) and [a.label for a in added.arms] == ["inductor"]
    summary = parse({"type": "summary", "session": {"status": "running", "arms": []}})
    assert isinstance(summary, Summary) and summary.session.status == "running"
    assert parse({"type": "hello", "torch": "2.6"}) is None
    assert parse({"type": "summary", "session": None}) is None


def _saved() -> dict:
    script = {"path": "/p/train.py", "sweep": "batch_size", "unit": "tokens"}
    config = {"batch_sizes": [4], "warmup": 1, "steps": 3, "replicates": 2, "device": "cpu"}
    costs = {"compile_s": 2.0, "compile_cold_s": 4.0}
    arms = [
        {"name": "eager", "backend": "eager", "results": [{"batch_size": 4}]},
        {"name": "inductor", "backend": "inductor", "results": [{"batch_size": 4, **costs}]},
    ]
    return {"status": "completed", "config": {**config, "script": script}, "arms": arms}


def test_a_saved_sessions_plots_are_laid_out_from_the_typed_model():
    compiled = {"type": "compile", "arm": 1, "batch_size": 4, "step": 0, "kind": "first"}
    events = [{**compiled, "seconds": 1.0, "timer": True}]
    data = LiveData.from_session(SessionModel.from_json(_saved()), events)
    assert [a.name for a in data.arms] == ["eager", "inductor"]
    assert [a.eager for a in data.arms] == [True, False]
    assert (data.batch_sizes, data.warmup, data.span, data.replicates) == ([4], 1, 5, 2)
    assert data.device == "cpu" and data.unit == "tokens"
    assert isinstance(data.script_source, ScriptSource)
    assert data.section_label((0, 4)) == "r1 batch_size=4"
    assert data.compile_costs == {(1, 4): 4.0}, "the cold compile, as the reports say"
    assert "25%" in data.arms[1].markers[0].text


def test_the_model_reads_a_runs_plan_and_old_sessions_still_open():
    plan = SessionModel.from_json(_saved()).options
    assert (plan.warmup, plan.steps, plan.replicates) == (1, 3, 2)
    assert plan.script is not None and plan.script.sweep == "batch_size"
    old = SessionModel.from_json({"arms": [], "config": {"source": {"path": "/m/net.py"}}}).options
    assert (old.warmup, old.steps, old.replicates) == (None, None, None)
    assert (old.device, old.script, old.source.path) == (None, None, "/m/net.py")
    bare = SessionModel.from_json({"config": {"script": {"args": ["--x"]}}}).options
    assert bare.script == ScriptSource(path="", args=("--x",))


def test_each_record_reads_the_wire_by_the_names_the_protocol_declares():
    from dataclasses import fields

    from tcprof.app.plots import live_events
    from tcprof.profiler.protocol.events import EVENT_FIELDS, EventType

    kinds = {
        live_events.Steps: EventType.STEPS,
        live_events.Memory: EventType.MEMORY,
        live_events.Compile: EventType.COMPILE,
        live_events.BlockDone: EventType.BLOCK_DONE,
    }
    given = frozenset({"where", "ms", "scripted", "kind", "timer", "cost"})
    for record, kind in kinds.items():
        read = {name for name, _ in live_events._wire_fields(record, EVENT_FIELDS[kind], given)}
        own = {f.name for f in fields(record)} - given
        assert read == own, f"{record.__name__}: each field is one its kind declares"
    late = parse({"type": "memory", "arm": 0, "step": 2, "rss_mb": "5", "cuda_alloc_mb": 1})
    assert isinstance(late, Memory) and (late.step, late.rss_mb, late.cuda_alloc_mb) == (
        2,
        None,
        1.0,
    )
