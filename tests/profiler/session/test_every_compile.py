"""Every compile counted, wherever it happens: a script that evaluates under no_grad before it
trains (as nanoGPT's train.py) and one that compiles a helper function outside the model. The
compile cost is the sum of torch's compile events of the cold round (before training, in a
step, in an evaluation between steps), checked against a backend that sleeps a known time per
compile; start-up leaves the compiles out. The events are real (each script run's worker
driven in this process)."""

from __future__ import annotations

import pytest

from tcprof.profiler.analysis.break_even import break_even
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.session.fold import SessionFold
from tests.support import sleeping_backend
from tests.support.paths import ROOT
from tests.support.script_harness import schedule, script_config, serve
from tests.support.synthetic import EVAL_FIRST_COMPILES, synthetic_session

pytestmark = pytest.mark.timeout(180, method="thread")
SCRIPTS = ROOT / "tests" / "support" / "scripts"


def _session(script: str, backend: str) -> tuple[dict, list[dict]]:
    sleeping_backend.register()
    cfg = script_config(
        SCRIPTS / script, ("--steps", "30"), arms=(ArmSpec("eager"), ArmSpec(backend))
    )
    events = [{"type": "run_start", "config": cfg.to_dict(), "wall_time": 0.0}]
    for arm in (0, 1):
        events += [{**e, "arm": arm, "replicate": 0} for e in serve(schedule(cfg, arm))]
    events.append({"type": "run_end", "status": "completed", "wall_time": 1.0})
    return SessionFold.from_events(events).to_dict(), events


@pytest.fixture(scope="module")
def eval_first():
    return _session("eval_first.py", sleeping_backend.SLEEPING)


@pytest.fixture(scope="module")
def helper():
    return _session("compiled_helper.py", "aot_eager")


def _events_s(events: list[dict]) -> float:
    return sum(
        (e.get("seconds") or 0) + (e.get("backward_s") or 0)
        for e in events
        if e["type"] == "compile" and e["arm"] == 1
    )


def test_an_evaluation_before_training_is_counted_with_the_sleeping_backend(eval_first):
    data, events = eval_first
    row = data["arms"][1]["results"][0]
    compiles = [e for e in events if e["type"] == "compile" and e["arm"] == 1]
    assert [c["when"] for c in compiles] == ["before_training", "step", "evaluation"]
    sleep = sleeping_backend.SLEEP_S
    assert row["compile_cold_s"] >= 3 * sleep  # each compile slept: known by construction
    # the backend's share is the sleep (close to it); dynamo's own tracing is the rest
    backend = [c["backend_s"] for c in compiles]
    assert all(sleep <= b <= sleep + 0.25 for b in backend), backend
    assert row["compile_cold_s"] <= 3 * sleep + 4.0
    assert row["compile_cold_s"] == pytest.approx(_events_s(events), rel=0.05)
    assert session_problem(data) is None


def test_the_per_compile_list_says_when_what_and_adds_up(eval_first):
    data, _ = eval_first
    row = data["arms"][1]["results"][0]
    listed = row["compiles_list"]
    assert [c["when"] for c in listed] == ["before_training", "step", "evaluation"]
    assert [c["grad_mode"] for c in listed] == [False, True, False]
    assert all(c["site_file"].endswith("eval_first.py") for c in listed)
    assert listed[0]["shapes"] == [[16, 8]] and listed[2]["shapes"] == [[5, 8]]
    assert listed[2]["at_step"] == 4
    assert sum(c["seconds"] for c in listed) == pytest.approx(row["compile_cold_s"])
    assert sum(c["share"] for c in listed) == pytest.approx(1.0)


def test_start_up_leaves_out_the_compile_before_training(eval_first):
    data, events = eval_first
    first = next(e for e in events if e["type"] == "first_step" and e["arm"] == 1)
    assert first["startup_compile_s"] >= sleeping_backend.SLEEP_S
    assert first["startup_s"] < sleeping_backend.SLEEP_S  # the script's own start-up is tiny
    assert data["arms"][1]["results"][0]["script"]["startup_s"] == first["startup_s"]


def test_the_first_step_is_checked_against_its_wall_clock_excess(eval_first):
    row = eval_first[0]["arms"][1]["results"][0]
    check = row["compile_check"]
    assert check["events_s"] >= sleeping_backend.SLEEP_S
    assert check["excess_s"] == pytest.approx(check["events_s"], abs=0.1)
    assert check["residual_s"] == pytest.approx(check["excess_s"] - check["events_s"])


def test_break_even_follows_the_full_cost(eval_first):
    """The real run's full cost is at least its three sleeps; break-even divides that full
    cost (compiles and the first step's extra) by what a step saves, checked on a session of
    three rounds where the compiled arm is twice as fast (one round has no interval)."""
    row = eval_first[0]["arms"][1]["results"][0]
    assert (
        row["compile_cold_s"] + (row["first_step_extra_s"] or 0.0) >= 3 * sleeping_backend.SLEEP_S
    )
    eager = [[2.0, 2.02, 1.98, 2.0]] * 3
    fast = [[1.0, 1.01, 0.99, 1.0], [1.0, 1.02, 0.98, 1.0], [1.01, 1.0, 0.99, 1.0]]
    doc = synthetic_session(
        compiles=EVAL_FIRST_COMPILES, first_step_ms=(50.0, 1250.0), rounds={0: eager, 1: fast}
    )
    row = doc["arms"][1]["results"][0]
    base = doc["arms"][0]["results"][0]["median_ms"]
    full = row["compile_cold_s"] + (row["first_step_extra_s"] or 0.0)
    assert row["compile_cold_s"] == pytest.approx(4.0, abs=1e-6)  # the compiles, every one
    assert full > row["compile_cold_s"], "the first step's extra counts too"
    low, high = row["speedup_ci"]
    assert row["break_even_cold_steps"] == pytest.approx(
        full * 1000 / (base * (1 - 1 / row["speedup"])), rel=1e-6
    )
    found = break_even([full], [2.0, 2.0, 2.0], row["process_medians_ms"])
    assert row["break_even_cold_ci"] == pytest.approx([found.low, found.high], rel=1e-6)


def test_a_compiled_helper_outside_the_model_is_counted(helper):
    data, events = helper
    row = data["arms"][1]["results"][0]
    assert [c["when"] for c in row["compiles_list"]][:2] == ["before_training", "step"]
    assert row["compiles_list"][0]["site_file"].endswith("compiled_helper.py")
    assert row["compile_cold_s"] == pytest.approx(_events_s(events), rel=0.05)
    assert row["compile_cold_s"] > row["compile_check"]["events_s"]  # the one before counts


def test_a_recompile_for_evaluation_under_no_grad_names_the_call(eval_first):
    """The training step's recompile (grad on) followed the evaluation's graph (no_grad): the
    advice names that evaluation's call, before training, and the training call."""
    data, _ = eval_first
    (advice,) = [a for a in data["arms"][1]["advice"] if a["kind"] == "grad_mode"]
    message = advice["message"]
    assert "for evaluation under torch.no_grad() at " in message
    assert "eval_first.py:30 (before training, after 4 steps)" in message
    assert "for training with gradients at " in message and "eval_first.py:41" in message
    assert [c.rsplit("/", 1)[-1] for c in advice["evidence"]["calls"]] == ["eval_first.py:30"]
    assert [c.rsplit("/", 1)[-1] for c in advice["evidence"]["training_calls"]] == [
        "eval_first.py:41"
    ]
    fix = advice["fix"]
    assert "eval_first.py:30 in `with torch.compiler.set_stance(" in fix and "_orig_mod" in fix
    assert "--log guards,recompiles" not in fix
