"""CUDA graph modes: recording counted in compile cost unless the graphs were skipped, and a
skip reason read from Inductor's message with the user's frame. (The real CPU skip, which
torch only counts, is checked by the inductor test in test_inductor.py.)"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.session.fold import SessionFold
from tcprof.profiler.worker.dynamo_insight import parse_cudagraph_skip

INDUCTOR_RO = ArmSpec("inductor", mode="reduce-overhead")


def _session(skip: dict[str, Any] | None = None) -> dict[str, Any]:
    cfg = RunConfig(
        source=ModelSource(path="/m/model.py"),
        arms=(ArmSpec("eager"), INDUCTOR_RO),
        batch_sizes=(8,),
        warmup=3,
        steps=4,
    ).to_dict()
    s = SessionFold()
    s.apply({"type": "run_start", "config": cfg, "wall_time": 1.0})
    # eager: a 49 ms one-off first step; the compiled arm: the same, then 29 + 1 ms of
    # recording in its first two warm-up steps
    warmups = {0: [1.0, 1.0, 1.0], 1: [30.0, 2.0, 1.0]}
    for arm in (0, 1):
        at = {"arm": arm, "batch_size": 8}
        s.apply({"type": "first_step", **at, "ms": 50.0})
        if arm == 1 and skip:
            s.apply({"type": "cudagraph_skip", **at, "step": 0, **skip})
        s.apply({"type": "steps", **at, "phase": "warmup", "start": 1, "ms": warmups[arm]})
        s.apply({"type": "steps", **at, "phase": "measure", "start": 4, "ms": [1.0] * 4})
        s.apply({"type": "bs_done", **at})
        s.apply({"type": "done", "arm": arm, "status": "ok"})
    return s.to_dict()


def test_recording_steps_count_as_compile_cost_when_graphs_were_used():
    row = _session()["arms"][1]["results"][0]
    assert abs(row["compile_cold_s"] - 0.030) < 1e-9


def test_a_skipped_graph_adds_no_recording_and_gives_advice():
    skip = {"reason": "mutated inputs (1 instances)", "file": "/m/model.py", "line": 7, "count": 1}
    arm = _session(skip)["arms"][1]
    assert abs(arm["results"][0]["compile_cold_s"]) < 1e-9
    assert arm["cudagraph_skips"][0]["reason"] == "mutated inputs (1 instances)"
    (advice,) = [a for a in arm["advice"] if a["kind"] == "cudagraphs_skipped"]
    assert "ran without CUDA graphs at batch size(s) 8: mutated inputs" in advice["message"]
    assert advice["evidence"]["where"] == ["/m/model.py:7"]
    assert "max-autotune-no-cudagraphs" in advice["fix"]


def test_the_skip_message_gives_its_reason_and_the_users_frame():
    text = (
        "skipping cudagraphs due to mutated inputs (1 instances). Found from : \n"
        '   File "/usr/lib/python3/site-packages/torch/nn/modules/module.py", line 1775, in _call\n'
        '   File "/m/model.py", line 12, in forward\n'
        "    x.add_(1)\n"
    )
    skip = parse_cudagraph_skip(text, "/m/model.py")
    assert skip == {
        "reason": "mutated inputs (1 instances)",
        "file": "/m/model.py",
        "line": 12,
        "count": 1,
    }
    other = parse_cudagraph_skip("skipping cudagraphs due to cpu device (arg0_1)", None)
    assert other["reason"] == "cpu device (arg0_1)" and other["file"] is None
