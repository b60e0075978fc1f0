"""A real inductor run (a cold compile takes ~15-20 s on these machines), in
mode=reduce-overhead: on a CPU the mode's CUDA graphs are skipped, which torch 2.13 only counts,
and the arm must say so."""

from __future__ import annotations

import pytest

from tests.support.cli import arm, run_cli


@pytest.mark.inductor
def test_inductor_on_simple_example(tmp_path):
    rc, stdout, stderr, s = run_cli(
        [
            "--example",
            "simple",
            "--arms",
            "eager,inductor:mode=reduce-overhead",
            "--batch-sizes",
            "16",
            "--warmup",
            "3",
            "--steps",
            "10",
            "--quiet",
        ],
        tmp_path,
    )
    assert rc == 0, stdout + stderr
    compiled = arm(s, "inductor(reduce-overhead)")
    row = compiled["results"][0]
    assert row["status"] == "ok" and row["accuracy"]["status"] == "pass"
    assert row["compile_s"] > 0 and row["dynamo_compile_s"] > 0
    assert row["graphs"] >= 1
    skips = compiled["cudagraph_skips"]
    assert skips and "cpu device" in skips[0]["reason"] and skips[0]["batch_size"] == 16
    advice = [a for a in compiled["advice"] if a["kind"] == "cudagraphs_skipped"]
    assert (
        len(advice) == 1 and "ran without CUDA graphs at batch size(s) 16" in advice[0]["message"]
    )
    assert "without CUDA graphs" in stdout


def test_cudagraph_modes_need_three_warmup_steps(tmp_path):
    rc, stdout, stderr, _ = run_cli(
        ["--example", "simple", "--arms", "eager,inductor:mode=max-autotune", "--warmup", "2"],
        tmp_path,
    )
    assert rc == 2
    assert "mode=max-autotune needs --warmup 3 or more" in stdout + stderr
