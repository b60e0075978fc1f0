"""`tcprof run --nproc 2 -- python ddp_train.py`: a script written for torchrun runs unchanged
in every rank of each arm (it joins its own gloo process group from torchrun's environment and
wraps its own model in DDP), eager against aot_eager. One real run, shared by the tests that read
its session; Stop is a run of its own."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.support.live_runs import alive, events_so_far, rank_pids
from tests.support.paths import ROOT
from tests.support.script_cli import SHORT, arm, notes, run_script

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
SCRIPT = ROOT / "tests" / "support" / "scripts" / "ddp_train.py"


@pytest.fixture(scope="module")
def ddp(tmp_path_factory):
    out = tmp_path_factory.mktemp("ddp") / "session"
    options = ["--arms", "eager,aot_eager", "--nproc", "2", *SHORT]
    code, stdout, stderr, session = run_script(options, ["python", str(SCRIPT)], out)
    assert code == 0, stderr[-3000:]
    return session, stdout, out


def test_each_arm_runs_the_script_in_two_ranks_under_torchrun(ddp):
    session, stdout, out = ddp
    config = session["config"]
    assert (config["nproc"], config["parallel"]) == (2, "torchrun")
    for name in ("eager", "aot_eager"):
        a = arm(session, name)
        assert a["error"] is None and a["world_size"] == 2
        (row,) = a["results"]
        assert row["status"] == "ok" and row["steps"] == 4
        assert row["world_size"] == 2 and row["global_batch_size"] is None  # no batch sweep
        assert [r["rank"] for r in row["ranks"]] == [0, 1]
        assert all(r["median_ms"] > 0 and r["steps"] == 4 for r in row["ranks"])
        assert row["script"]["own_median_ms"] is not None
    assert "  eager (the script): 0: " in stdout and "slowest rank" in stdout
    assert len(set(rank_pids(out))) >= 4  # two ranks per arm, each its own process
    assert alive(rank_pids(out)) == []


def test_the_scripts_own_ddp_model_is_compiled_in_place_once_in_the_notes(ddp):
    session, stdout, _ = ddp
    compiled = [t for t in notes(session, "aot_eager") if "compiled in place" in t]
    assert compiled == [
        "`model`, DistributedDataParallel (torch.nn.parallel.distributed), compiled in place "
        "with backend=aot_eager"
    ]
    assert stdout.count("compiled in place with backend=aot_eager") == 1  # rank 0's note only
    row = arm(session, "aot_eager")["results"][0]
    assert row["compile_status"] == "compiled" and row["compile_cold_s"] > 0


def test_the_loss_is_rank_zeros_step_by_step_and_agrees_across_arms(ddp):
    session, _, out = ddp
    rank0: dict[tuple[str, int], float] = {}
    names = {
        e["arm"]: e["name"]
        for e in events_so_far(out / "events.jsonl")
        if e.get("type") == "arm_start"
    }
    for e in events_so_far(out / "events.jsonl"):
        inner = e.get("event") or {}
        if e.get("type") != "rank_event" or e.get("rank") != 0 or e["replicate"] != 0:
            continue
        if inner.get("type") == "first_step":
            rank0[(names[e["arm"]], 0)] = inner["loss"]
        elif inner.get("type") == "steps":
            for i, loss in enumerate(inner["loss"]):
                rank0[(names[e["arm"]], inner["start"] + i)] = loss
    curves = {
        n: dict(arm(session, n)["results"][0]["script"]["loss_curve"]) for n in names.values()
    }
    for name, curve in curves.items():
        assert curve and all(curve[step] == rank0[(name, step)] for step in curve)
    eager, compiled = curves["eager"], curves["aot_eager"]
    assert eager.keys() == compiled.keys()
    assert all(compiled[s] == pytest.approx(eager[s], rel=1e-3) for s in eager)


def test_loss_parity_runs_the_script_three_times_in_each_rank(ddp):
    session, _, _ = ddp
    accuracy = arm(session, "aot_eager")["results"][0]["accuracy"]
    assert accuracy["status"] == "pass", accuracy
    assert accuracy["curves"]["eager"] == accuracy["curves"]["eager_again"]


def test_stop_while_the_ranks_run_the_script_leaves_none_behind(tmp_path):
    out = tmp_path / "stop"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tcprof.profiler", "run", "--arms", "eager", "--nproc", "2"]
        + [*SHORT, "--steps", "100000", "--out", str(out), "--"]
        + ["python", str(SCRIPT), "--steps", "1000000"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 180
        while not any(e.get("phase") == "measuring" for e in events_so_far(out / "events.jsonl")):
            assert time.monotonic() < deadline, "no block within 180 s"
            try:
                proc.wait(timeout=0.1)
            except subprocess.TimeoutExpired:
                continue
            raise AssertionError(f"the run ended by itself: {proc.stderr.read()[-2000:]}")
        pids = rank_pids(out)
        assert len(pids) == 2 and alive(pids) == pids
        proc.send_signal(signal.SIGINT)  # as Ctrl+C, or the window's Stop
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 10
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(pids) == []


def test_a_rank_that_dies_in_the_script_ends_the_arm_is_named_and_leaves_none(tmp_path):
    script = tmp_path / "dies.py"
    script.write_text(
        textwrap.dedent(
            """\
            import os
            import torch
            import torch.distributed as dist
            from torch.nn.parallel import DistributedDataParallel

            dist.init_process_group("gloo")
            model = DistributedDataParallel(torch.nn.Linear(4, 1))
            opt = torch.optim.SGD(model.parameters(), lr=0.01)
            for step in range(100):
                if dist.get_rank() == 1 and step == 3:
                    os._exit(3)
                model(torch.randn(2, 4)).sum().backward()
                opt.step()
                opt.zero_grad()
            """
        )
    )
    out = tmp_path / "out"
    options = ["--arms", "eager", "--nproc", "2", "--no-accuracy", *SHORT]
    code, _, stderr, session = run_script(options, ["python", str(script)], out)
    assert code != 0 and session is not None, stderr[-3000:]
    error = arm(session, "eager")["error"]
    assert error["kind"] == "crash", error
    assert (
        error["message"].startswith("eager: rank 1 (node 0, ") and "ended first" in error["message"]
    )
    pids = rank_pids(out)
    assert len(pids) == 2 and alive(pids) == []
