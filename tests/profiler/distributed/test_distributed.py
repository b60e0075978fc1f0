"""Distributed arms for real: torchrun on this machine, 2 ranks, gloo, cheap backends.

Each test runs the real CLI; every rank reports, a rank's error or stall is named, and no
process of the arm outlives the run.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support.cli import arm, events, fast_args, run_cli
from tests.support.live_runs import alive, events_so_far, rank_pids

# Only the tests with a deadline of seconds (the stall, Stop during a compile) are `serial`;
# the rest check what the ranks report, which another test beside them does not change.
pytestmark = [pytest.mark.timeout(240)]

QUICK = fast_args(batch_sizes="16", steps=4, accuracy=False, quiet=False)


def _assert_all_gone(pids: list[int]) -> None:
    left = alive(pids)
    assert not left, f"processes left behind: {left}"


def _model(tmp_path: Path, body: str) -> Path:
    """A small model whose forward runs `body` (a call counter `self.calls` is kept)."""
    path = tmp_path / "ranked.py"
    path.write_text(
        textwrap.dedent(
            """\
            import os, time
            import torch.nn as nn


            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 1)
                    self.calls = 0
                    self.rank = int(os.environ.get("RANK", "0"))

                def forward(self, x):
                    self.calls += 1
            {body}
                    return self.fc(x)
            """
        ).format(body=textwrap.indent(textwrap.dedent(body), " " * 8))
    )
    return path


# Under DDP both arms, so the speedup between distributed arms is checked; under FSDP the compiled
# arm only (its wrapping, accuracy and per-rank compile are FSDP's own; an eager arm's ranks are
# merged by the same code as under DDP), one torchrun launch fewer for the suite.
@pytest.mark.parametrize(("parallel", "arms"), [("ddp", "eager,aot_eager"), ("fsdp", "aot_eager")])
def test_two_ranks_report_per_rank_results_and_a_speedup(tmp_path, parallel, arms):
    out = tmp_path / "out"
    args = ["--example", "mlp", "--arms", arms, "--nproc", "2"]
    checked = [a for a in QUICK if a != "--no-accuracy"]  # each rank checks its wrapped step
    rc, stdout, stderr, session = run_cli([*args, "--parallel", parallel, *checked], out)
    assert rc == 0, stderr
    assert session is not None
    accuracy = arm(session, "aot_eager")["results"][0]["accuracy"]
    assert accuracy["status"] == "pass" and accuracy["ranks_checked"] == 2, accuracy
    assert "gradients" in accuracy["checked"]
    config = session["config"]
    assert (config["nproc"], config["parallel"], config["nnodes"]) == (2, parallel, 1)
    for name in arms.split(","):
        a = arm(session, name)
        assert a["error"] is None
        assert a["world_size"] == 2
        assert a["model"]["parallel"]["parallel"] == parallel
        (row,) = a["results"]
        assert (row["world_size"], row["global_batch_size"]) == (2, 32)
        assert [r["rank"] for r in row["ranks"]] == [0, 1]
        for rank in row["ranks"]:
            assert rank["median_ms"] > 0 and rank["steps"] == row["steps"]
            assert rank["host"] and rank["node"] == 0
        assert row["samples_per_s"] == pytest.approx(32 / (row["median_ms"] / 1000))
    if parallel == "ddp":  # against the eager arm
        assert arm(session, "aot_eager")["results"][0]["speedup"] is not None
    assert arm(session, "aot_eager")["results"][0]["ranks"][0]["compile_cold_s"] is not None
    ranks = arm(session, "aot_eager")["results"][0]["ranks"]
    assert ranks[0]["graph_breaks"] == ranks[1]["graph_breaks"]  # DDP's own, on either rank
    for rank in ranks:  # each rank's own compile
        assert rank["graphs"] >= 1 and rank["compile_s"] > 0 and rank["guards"] > 0
        assert rank["recompiles"] == 0
        # DDP's first gradient bucket holds 1 MB, the MLP's weights about 3.7 MB: DDPOptimizer
        # splits its graph, and says so apart from graph breaks
        assert (rank["ddp_splits"] >= 1) == (parallel == "ddp")
    assert "slowest rank" in stdout
    assert "compile per rank: 0: " in stdout and "diverged" not in stdout
    _assert_the_step_is_the_slowest_ranks(out)
    _assert_all_gone(rank_pids(out))


def _assert_the_step_is_the_slowest_ranks(out: Path) -> None:
    """Each measured sample of the headline is, step by step, the largest of the ranks'."""
    merged: dict[tuple, float] = {}
    fastest: dict[tuple, float] = {}
    per_rank: dict[tuple, list[float]] = {}
    for e in events_so_far(out / "events.jsonl"):
        steps = e["event"] if e["type"] == "rank_event" else e
        if steps.get("type") != "steps" or steps.get("phase") != "measure":
            continue
        for i, ms in enumerate(steps["ms"]):
            key = (e["arm"], steps["batch_size"], steps["start"] + i)
            if e["type"] == "rank_event":
                per_rank.setdefault(key, []).append(ms)
            else:
                merged[key], fastest[key] = ms, steps["ms_fastest"][i]
    assert merged and set(merged) == set(per_rank)
    assert all(len(per_rank[k]) == 2 and merged[k] == max(per_rank[k]) for k in merged)
    assert all(fastest[k] == min(per_rank[k]) for k in merged)


def test_a_rank_that_raises_ends_the_arm_and_is_named(tmp_path):
    model = _model(
        tmp_path, 'if self.rank == 1 and self.calls == 3:\n    raise RuntimeError("rank one broke")'
    )
    out = tmp_path / "out"
    args = [str(model), "--arms", "eager", "--nproc", "2", "--parallel", "ddp", *QUICK]
    rc, _, stderr, session = run_cli(args, out)
    assert session is not None, stderr
    assert rc != 0
    error = arm(session, "eager")["error"]
    assert error["message"].startswith("rank 1 (node 0, ")
    assert "rank one broke" in error["message"]
    _assert_all_gone(rank_pids(out))


def test_a_rank_that_dies_ends_the_arm_and_is_named(tmp_path):
    model = _model(tmp_path, "if self.rank == 1 and self.calls == 3:\n    os._exit(3)")
    out = tmp_path / "out"
    args = [str(model), "--arms", "eager", "--nproc", "2", "--parallel", "ddp", *QUICK]
    rc, _, stderr, session = run_cli(args, out)
    assert session is not None, stderr
    assert rc != 0
    error = arm(session, "eager")["error"]
    assert error["kind"] == "crash"
    assert error["message"].startswith("eager: rank 1 (node 0, ")
    assert "ended first" in error["message"]
    _assert_all_gone(rank_pids(out))


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_a_rank_that_sleeps_forever_is_caught_by_the_stall_timeout_and_named(tmp_path):
    model = _model(tmp_path, "if self.rank == 1 and self.calls == 3:\n    time.sleep(3600)")
    out = tmp_path / "out"
    args = [str(model), "--arms", "eager", "--nproc", "2", "--parallel", "ddp", *QUICK]
    rc, _, stderr, session = run_cli([*args, "--stall-timeout", "5"], out)
    assert session is not None, stderr
    assert rc != 0
    (stall,) = [e for e in events(out) if e["type"] == "error" and e["kind"] == "stall"]
    assert "rank 1 (node 0, " in stall["message"] and "is behind" in stall["message"]
    assert "ranked.py" in stall["message"]
    _assert_all_gone(rank_pids(out))


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_stop_during_a_distributed_compile_leaves_no_process_behind(tmp_path):
    out = tmp_path / "out"
    args = ["--example", "mlp", "--arms", "aot_eager", "--nproc", "2", "--parallel", "fsdp"]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tcprof.profiler",
            "run",
            *args,
            *QUICK,
            "--quiet",
            "--out",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not _compiling(out / "events.jsonl") and time.monotonic() < deadline:
            try:
                proc.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                continue
            raise AssertionError(f"the run ended before compiling: {proc.stderr.read()}")
        pids = rank_pids(out)
        assert len(pids) == 2
        proc.send_signal(signal.SIGINT)  # as Ctrl+C, or the window's Stop
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    _assert_all_gone(pids)


def _compiling(path: Path) -> bool:
    return any(
        e.get("type") == "phase" and e.get("phase") == "compiling" for e in events_so_far(path)
    )


def test_two_nodes_on_the_loopback_address_make_one_session(tmp_path):
    """Two `tcprof run` processes as two nodes of one rank each: node 1 follows node 0, whose
    session holds both ranks."""
    with socket.socket() as probe:  # a free port for node 0's endpoint
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    nodes = ["--nnodes", "2", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-timeout", "60"]
    args = ["--example", "mlp", "--arms", "eager", "--nproc", "1", "--parallel", "ddp", *nodes]
    out = tmp_path / "out"
    follower = subprocess.Popen(
        [sys.executable, "-m", "tcprof.profiler", "run", *args, *QUICK, "--node-rank", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        rc, stdout, stderr, session = run_cli([*args, *QUICK, "--node-rank", "0"], out)
        said = follower.communicate(timeout=60)[1]
    finally:
        if follower.poll() is None:
            follower.kill()
    assert rc == 0, stderr
    assert follower.returncode == 0, said
    assert f"node 1 follows node 0 at 127.0.0.1:{port}" in said
    assert f"session: {out}" in said
    assert session is not None
    assert (session["config"]["nnodes"], session["config"]["nproc"]) == (2, 1)
    (row,) = arm(session, "eager")["results"]
    assert (row["world_size"], row["global_batch_size"]) == (2, 32)
    assert sorted(r["node"] for r in row["ranks"]) == [0, 1]
    assert all(r["median_ms"] > 0 and r["host"] for r in row["ranks"])
    assert "slowest rank" in stdout
    _assert_all_gone(rank_pids(out))


@pytest.mark.inductor
def test_a_ddp_arm_compiled_by_inductor_reports_every_ranks_compile(tmp_path):
    """The one real inductor compile under torchrun (a tiny model: the C++ kernels of one
    Linear layer, built by both ranks at once)."""
    out = tmp_path / "out"
    args = ["--example", "simple", "--arms", "inductor", "--nproc", "2", "--parallel", "ddp"]
    rc, stdout, stderr, session = run_cli([*args, *QUICK], out)
    assert rc == 0, stderr
    assert session is not None
    compiled = arm(session, "inductor")
    assert compiled["error"] is None
    (row,) = compiled["results"]
    assert row["status"] == "ok" and row["world_size"] == 2 and row["compile_s"] > 0
    for rank in row["ranks"]:
        assert rank["graphs"] >= 1 and rank["compile_s"] > 0, rank
    assert "compile per rank" in stdout
    _assert_all_gone(rank_pids(out))
