"""A real inductor run (a cold compile takes ~15-20 s on these machines)."""

from __future__ import annotations

import pytest

from tests.engine.helpers import arm, run_cli


@pytest.mark.inductor
def test_inductor_on_simple_example(tmp_path):
    rc, stdout, stderr, s = run_cli(
        [
            "--example",
            "simple",
            "--arms",
            "eager,inductor",
            "--batch-sizes",
            "16",
            "--warmup",
            "2",
            "--steps",
            "10",
            "--quiet",
        ],
        tmp_path,
    )
    assert rc == 0, stdout + stderr
    row = arm(s, "inductor")["results"][0]
    assert row["status"] == "ok" and row["accuracy"]["status"] == "pass"
    assert row["compile_s"] > 0 and row["dynamo_compile_s"] > 0
    assert row["graphs"] >= 1
