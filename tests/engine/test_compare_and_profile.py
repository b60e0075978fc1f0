from __future__ import annotations

import json
import subprocess
import sys

from profiler.compare import compare_sessions, render_comparison
from tests.engine.helpers import arm, run_cli


def _session(median, peak, name="eager"):
    return {
        "arms": [
            {
                "name": name,
                "results": [
                    {
                        "batch_size": 8,
                        "status": "ok",
                        "median_ms": median,
                        "iqr_ms": 0.01,
                        "peak_rss_mb": peak,
                        "peak_cuda_mb": None,
                        "speedup": None,
                    }
                ],
            }
        ]
    }


def test_compare_names_the_direction_of_each_change():
    rows = compare_sessions(_session(2.0, 400), _session(1.0, 500))
    assert rows[0]["time_change"] == -0.5 and rows[0]["time_direction"] == "better"
    assert rows[0]["memory_direction"] == "worse"
    same = compare_sessions(_session(2.0, 400), _session(2.01, 400))[0]
    assert same["time_direction"] == "unchanged" and same["memory_direction"] == "unchanged"
    assert "-50.0%" in render_comparison(rows)
    assert compare_sessions(_session(2.0, 400), _session(1.0, 400, name="other")) == []


def test_compare_command_and_its_errors(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_session(2.0, 400)))
    b.write_text(json.dumps(_session(3.0, 400)))
    ok = subprocess.run(
        [sys.executable, "-m", "profiler", "compare", str(a), str(b)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0 and "worse" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "profiler", "compare", str(a), str(tmp_path / "missing.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "cannot read session" in bad.stderr


def test_torch_profiler_pass_writes_a_trace_and_top_ops(tmp_path):
    rc, _, _, s = run_cli(
        [
            "--example",
            "mlp",
            "--arms",
            "eager,aot_eager",
            "--batch-sizes",
            "8",
            "--warmup",
            "1",
            "--steps",
            "3",
            "--profile-steps",
            "2",
            "--replicates",
            "1",
            "--min-block-ms",
            "0",
            "--no-accuracy",
            "--quiet",
        ],
        tmp_path,
    )
    assert rc == 0
    for name in ("eager", "aot_eager"):
        profile = arm(s, name)["results"][0]["profile"]
        assert profile["steps"] == 2
        trace = json.loads(open(profile["path"]).read())
        assert trace["traceEvents"]
        ops = [o["name"] for o in profile["top_ops"]]
        assert any(op.startswith("aten::") for op in ops)
        assert arm(s, name)["results"][0]["steps"] == 3, "profiled steps are not measured steps"
    assert (
        (tmp_path / "report.html").exists()
        and (tmp_path / "report.md").exists()
        and (tmp_path / "reproduce.py").exists()
    )
