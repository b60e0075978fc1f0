"""analysis reads the session model's typed records (issue 40, item 3): the advice from an
`Arm`, the straggler view from `Row.ranks`, the regional tradeoffs and the ladder from a
`SessionModel`, the profile check from a `Profile`, the timeline from typed marks; a dict that
still enters is read through the model and gives the same answer."""

from __future__ import annotations

import pytest

from tcprof.profiler.analysis import regional, stopping, stragglers
from tcprof.profiler.analysis.advice import arm_advice, cudagraph_advice
from tcprof.profiler.analysis.ladder import ladder_summary
from tcprof.profiler.analysis.profile_check import profile_mismatch
from tcprof.profiler.analysis.timeline import Mark, build_timeline
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.profile import Profile
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.session.marks import timeline_mark
from tests.support.synthetic import eval_first_session

pytestmark = pytest.mark.timeout(30)


def test_the_advice_of_a_typed_arm_is_the_advice_its_session_saved():
    """The grad-mode advice needs each recompile's call (site, when, grad mode): the model's
    `Recompile` now carries them, so the typed arm says what the writer saved."""
    saved = eval_first_session()
    arm = SessionModel.from_json(saved).arms[1]
    calls = [(r.grad_mode, r.when, r.site_file, r.site_line) for r in arm.recompiles]
    assert calls == [
        (True, "step", "/scripts/eval_first.py", 40),
        (False, "evaluation", "/scripts/eval_first.py", 30),
    ]
    sizes = [int(b) for b in saved["config"]["batch_sizes"]]
    assert arm_advice(arm, sizes, None) == arm_advice(
        Arm.of(saved["arms"][1], False, None), sizes, None
    )
    assert [a["message"] for a in arm_advice(arm, sizes, None)] == [a.message for a in arm.advice]


def test_skipped_cuda_graphs_are_typed_and_advised_per_reason():
    arm = {
        "name": "inductor",
        "backend": "inductor",
        "options": {"mode": "reduce-overhead"},
        "cudagraph_skips": [
            {"batch_size": 8, "reason": "mutated inputs", "count": 3, "file": "m.py", "line": 4},
            {"batch_size": 16, "reason": "mutated inputs"},
        ],
    }
    model = SessionModel.from_json({"arms": [{"name": "eager"}, arm]})
    skips = model.arms[1].cudagraph_skips
    assert [(s.batch_size, s.count, s.line) for s in skips] == [(8, 3, 4), (16, None, None)]
    (advice,) = cudagraph_advice(skips, model.arms[1].mode)
    assert advice["evidence"] == {"batch_sizes": [8, 16], "where": ["m.py:4"], "skips": 4}
    assert advice == arm_advice(model.arms[1], [8, 16], None)[0]


def _ranked_session() -> dict:
    ranks = [
        {"rank": 0, "node": 0, "host": "a", "median_ms": 10.0, "graphs": 1, "recompiles": 0},
        {
            "rank": 1,
            "node": 1,
            "host": "b",
            "median_ms": 12.5,
            "graphs": 1,
            "recompiles": 1,
            "recompile_reasons": ["tensor 'x' size mismatch"],
        },
    ]
    row = {"batch_size": 4, "global_batch_size": 8, "ranks": ranks}
    return {"arms": [{"name": "inductor", "backend": "inductor", "results": [row]}]}


def test_the_straggler_view_reads_the_rows_typed_ranks():
    session = _ranked_session()
    model = SessionModel.from_json(session)
    slow = model.arms[0].rows[0].ranks[1]
    assert (slow.rank, slow.host, slow.recompile_reasons) == (1, "b", ("tensor 'x' size mismatch",))
    (entry,) = stragglers.rows(model)
    assert entry.slowest == slow and entry.spread_pct == pytest.approx(25.0)
    assert entry.notes[0].startswith("rank 1 recompiled (tensor 'x' size mismatch)")
    assert stragglers.cells(entry)[4] == "rank 1 (node 1, b)"
    assert stragglers.text_lines(model)[1].startswith("  inductor bs 4 / 8: 0: ")


def _regional_session() -> dict:
    def row(cold_s: float, median_ms: float) -> dict:
        return {"batch_size": 8, "status": "ok", "compile_cold_s": cold_s, "median_ms": median_ms}

    config = {"arms": [{"backend": "inductor"}, {"backend": "inductor", "regional": True}]}
    arms = [
        {"index": 0, "name": "inductor", "backend": "inductor", "results": [row(10.0, 4.0)]},
        {
            "index": 1,
            "name": "inductor(regional)",
            "backend": "inductor",
            "results": [row(2.0, 5.0)],
        },
    ]
    return {"config": config, "arms": arms}


def test_regional_tradeoffs_are_made_from_the_model_and_read_back_typed():
    session = _regional_session()
    made = regional.regional_tradeoffs(SessionModel.from_json(session))
    assert made[0]["verdict"] == "regional for shorter runs" and made[0]["break_even_steps"] == 8001
    (saved,) = regional.rows(SessionModel.from_json({**session, "regional": made}))
    assert (saved.regional, saved.whole, saved.compile_saved_s) == (
        "inductor(regional)",
        "inductor",
        8.0,
    )
    assert regional.cells(saved)[-2:] == ["8,001", "regional for shorter runs"]


def test_the_ladder_summary_reads_a_model_as_it_reads_the_dict():
    def stage(i: int, backend: str, status: str) -> dict:
        row = {"batch_size": 4, "status": "ok", "median_ms": 1.0 + i, "compile_s": 0.5 * i}
        row["accuracy"] = {"status": status, "worst": {"name": "output"}}
        return {"index": i, "name": backend, "backend": backend, "results": [row]}

    backends = ["eager", "aot_eager", "inductor"]
    session = {
        "config": {"ladder": True, "arms": [{"backend": b} for b in backends]},
        "arms": [
            stage(i, b, "fail" if b == "inductor" else "pass") for i, b in enumerate(backends)
        ],
    }
    summary = ladder_summary(SessionModel.from_json(session))
    assert summary is not None and summary["first_divergence"] == "inductor"
    assert summary["stages"][2]["per_batch_size"][0]["added_ms"] == 1.0
    assert ladder_summary(SessionModel.from_json({"config": {}, "arms": session["arms"]})) is None


def test_the_profile_check_reads_a_typed_profile():
    busy = {"step_ms": 30.0, "quiet": False, "top_ops": [{"self_ms_per_step": 2.0}]}
    typed = Profile.of(busy)
    assert typed is not None
    said = profile_mismatch(typed, 9.0)
    assert said == profile_mismatch(Profile.of(busy), 9.0) and "busy" in (said or "")


def test_a_timeline_mark_is_typed_once_at_the_edge():
    mark = timeline_mark(
        {"type": "loaded", "t": 3, "arm": 0, "replicate": 0, "cpu_check": {"seconds": 0.5}}
    )
    assert mark == Mark(type="loaded", t=3.0, arm=0, replicate=0, cpu_check_s=0.5)
    assert timeline_mark({"type": "phase", "t": "soon"}) is None
    lanes = build_timeline(
        [Mark("arm_start", 0.0, arm=0, replicate=0), Mark("worker_exit", 2.0, arm=0, replicate=0)],
        ["eager"],
    )["lanes"]
    assert [s["what"] for s in lanes[0]["spans"]] == ["process start"]


def test_why_a_run_stopped_is_read_from_the_models_typed_stopping():
    saved = {
        "arms": [{"name": "eager", "results": []}],
        "stopping": {
            "reason": "precision",
            "rounds": 6,
            "looks": [4, 6],
            "level": 0.967,
            "precision": 0.025,
            "budget_s": None,
        },
    }
    model = SessionModel.from_json(saved)
    assert model.stopping is not None and model.stopping.looks == (4, 6)
    assert stopping.stop_text(model.stopping) == (
        "precision ±2.5% reached after 6 rounds (96.7% intervals, adjusted for stopping)"
    )
    assert SessionModel.from_json({"arms": []}).stopping is None, "a fixed run has none"
    assert stopping.stop_text(None) is None
