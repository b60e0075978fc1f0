"""Inductor's modes on the command line. The real reduce-overhead arm on a CPU (its CUDA graphs
skipped and said so) shares the cache test's run: tests/profiler/run/test_measurement.py."""

from __future__ import annotations

from tests.support.cli import run_cli


def test_cudagraph_modes_need_three_warmup_steps(tmp_path):
    rc, stdout, stderr, _ = run_cli(
        ["--example", "simple", "--arms", "eager,inductor:mode=max-autotune", "--warmup", "2"],
        tmp_path,
    )
    assert rc == 2
    assert "mode=max-autotune needs --warmup 3 or more" in stdout + stderr
