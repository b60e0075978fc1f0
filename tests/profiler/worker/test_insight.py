"""Compile insight in the session: graph breaks, recompiles per batch size, fullgraph errors
and the recompile-limit fallback."""

from __future__ import annotations

from tests.support.cli import FAST, MODELS, arm, events, run_cli


def test_graph_break_example_reports_file_and_line(tmp_path):
    rc, stdout, _, s = run_cli(
        [
            "--example",
            "graph_break",
            "--arms",
            "eager,aot_eager",
            "--batch-sizes",
            "8",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    assert rc == 0
    breaks = arm(s, "aot_eager")["graph_breaks"]
    assert len(breaks) >= 1
    gb = breaks[0]
    assert gb["file"].endswith("graph_break.py") and gb["line"] == 16
    assert "Data-dependent branching" in gb["reason"] and gb["count"] >= 1
    assert gb["hints"], "PyTorch's hints are kept"
    assert arm(s, "aot_eager")["results"][0]["graph_breaks"] >= 1
    assert "graph break" in stdout and "graph_break.py:16" in stdout


def test_dynamic_false_recompiles_per_size_and_dynamic_true_does_not(tmp_path):
    rc, stdout, _, s = run_cli(
        [
            "--example",
            "simple",
            "--arms",
            "eager; aot_eager:dynamic=false; aot_eager:dynamic=true",
            "--batch-sizes",
            "8,16,32",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    assert rc == 0, stdout
    static = arm(s, "aot_eager(dynamic=False)")
    assert [r["recompiles"] for r in static["results"]] == [0, 1, 1]
    assert [r["compile_status"] for r in static["results"]] == [
        "compiled",
        "recompiled",
        "recompiled",
    ]
    reasons = [r["reason"] for r in static["recompiles"]]
    assert "size mismatch at index 0. expected 8, actual 16" in reasons[0]
    assert [r["batch_size"] for r in static["recompiles"]] == [16, 32]
    dynamic = arm(s, "aot_eager(dynamic=True)")
    assert dynamic["recompiles"] == []
    assert [r["compile_status"] for r in dynamic["results"]] == ["compiled", "reused", "reused"]


def test_fullgraph_on_a_graph_break_fails_that_arm_only(tmp_path):
    rc, _, _, s = run_cli(
        [
            "--example",
            "graph_break",
            "--arms",
            "eager; aot_eager:fullgraph=true; aot_eager",
            "--batch-sizes",
            "8",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    assert rc == 1
    err = arm(s, "aot_eager(fullgraph)")["error"]
    assert err["kind"] == "compile"
    assert "Data-dependent branching" in err["message"] and err["line"] == 16
    assert arm(s, "aot_eager")["results"][0]["status"] == "ok"
    assert arm(s, "eager")["results"][0]["status"] == "ok"


def test_recompile_limit_fallback_is_flagged(tmp_path):
    sizes = ",".join(str(b) for b in range(1, 12))
    rc, stdout, _, s = run_cli(
        [
            "--example",
            "simple",
            "--arms",
            "eager,dynamo_eager:dynamic=false",
            "--batch-sizes",
            sizes,
            "--warmup",
            "0",
            "--steps",
            "2",
            "--blocks",
            "1",
            "--quiet",
        ],
        tmp_path,
    )
    assert rc == 0, stdout
    rows = arm(s, "dynamo_eager(dynamic=False)")["results"]
    assert not rows[0]["fell_back"]
    flagged = [r["batch_size"] for r in rows if r["fell_back"]]
    assert flagged and flagged == list(range(flagged[0], 12)), flagged
    assert all(r["compile_status"] == "fell_back" for r in rows if r["fell_back"])
    assert arm(s, "dynamo_eager(dynamic=False)")["fallbacks"][0]["frame"] == "forward"
    assert "fell back to eager" in stdout


def test_debug_flags_are_applied_and_recorded(tmp_path):
    rc, stdout, _, s = run_cli(
        [
            "--example",
            "graph_break",
            "--arms",
            "eager,aot_eager:dynamic=false",
            "--batch-sizes",
            "8,16",
            "--debug-preset",
            "--trace",
            "--compile-debug",
            "--fail-on-recompile",
            "--log",
            "guards",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    debug = s["config"]["debug"]
    assert debug["logs"] == ["guards", "graph_breaks", "recompiles"]
    assert debug["verbose"] and debug["explain"] and debug["trace"] and debug["compile_debug"]
    # an aot_eager arm is already there, so the preset adds none (it never replaces an arm)
    assert [a["name"] for a in s["arms"]] == ["eager", "aot_eager(dynamic=False)"]
    compiled = arm(s, "aot_eager(dynamic=False)")
    assert (
        compiled["explain"]["graph_break_count"] == 1
        and compiled["explain"]["break_reasons"][0]["line"] == 16
    )
    # fail_on_recompile turns the recompile at bs=16 into a clear error; bs=8 keeps its numbers
    assert compiled["results"][0]["status"] == "ok"
    assert "fail_on_recompile" in compiled["error"]["message"]
    assert rc == 1
    kinds = {a["kind"] for a in compiled["artifacts"]}
    assert "torch_trace" in kinds and "tlparse" in kinds
    tlparse = next(a["path"] for a in compiled["artifacts"] if a["kind"] == "tlparse")
    assert tlparse.startswith(str(tmp_path)) and (tmp_path / tlparse).exists()
    assert any((tmp_path / "artifacts").glob("*/compile_debug/*")), (
        "TORCH_COMPILE_DEBUG dump in the session folder"
    )
    artifact_logs = [e for e in events(tmp_path) if e["type"] == "log" and e.get("artifact")]
    assert {"guards", "graph_breaks"} <= {e["artifact"] for e in artifact_logs}


def test_suppressed_compile_failure_is_flagged_as_fallen_back(tmp_path):
    rc, stdout, _, s = run_cli(
        [
            str(MODELS / "relu_model.py"),
            "--arms",
            "eager,relu_compile_error_TESTING_ONLY",
            "--suppress-errors",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    row = arm(s, "relu_compile_error_TESTING_ONLY")["results"][0]
    assert row["status"] == "ok" and row["fell_back"] and row["compile_status"] == "fell_back"
    assert "fell back to eager" in stdout
