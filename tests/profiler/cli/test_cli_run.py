"""End-to-end runs of `tcprof run` in a subprocess: outputs, and every error path of issue 2."""

from __future__ import annotations

import csv

from tests.support.cli import FAST, FAST_CHECKED, MODELS, arm, events, run_cli


def test_simple_eager_vs_aot_eager_writes_everything(tmp_path):
    rc, stdout, _, s = run_cli(
        [
            "--example",
            "simple",
            "--arms",
            "eager,aot_eager",
            "--batch-sizes",
            "8,16",
            *FAST_CHECKED,
        ],
        tmp_path,
    )
    assert rc == 0, stdout
    assert s["schema_version"] == 4 and s["baseline"] == "eager"
    assert s["environment"]["torch"].startswith("2.") and s["environment"]["device"] == "cpu"
    for key in ("python", "platform", "device_name", "executable"):
        assert s["environment"][key]
    # each arm keeps its own interpreter and versions, as its real worker reported them
    for each in s["arms"]:
        own = each["environment"]
        assert own["torch"] == s["environment"]["torch"] and own["executable"]
        assert "triton" in own and own["python"] == s["environment"]["python"]
    assert s["provenance"]["tcprof"] and s["series"]["key"]
    compiled = arm(s, "aot_eager")
    assert compiled["backend"] == "aot_eager" and compiled["error"] is None
    assert [r["batch_size"] for r in compiled["results"]] == [8, 16]
    row = compiled["results"][0]
    for key in (
        "first_step_ms",
        "median_ms",
        "p10_ms",
        "p90_ms",
        "mean_ms",
        "samples_per_s",
        "compile_s",
        "peak_rss_mb",
        "speedup",
    ):
        assert isinstance(row[key], float), key
    assert row["status"] == "ok" and row["steps"] == 6
    assert row["p10_ms"] <= row["median_ms"] <= row["p90_ms"]
    assert row["speedup_ci"] is None, "one round: no 95% interval"
    assert row["speedup_ci_one_process"][0] <= row["speedup_ci_one_process"][1]
    assert row["accuracy"]["status"] == "pass"
    assert row["memory_ratio"] > 0
    assert "peak_cuda_mb" in row and "recompiles" in row and "graph_breaks" in row
    # steps.csv: one row per measured step
    rows = list(csv.DictReader((tmp_path / "steps.csv").open()))
    assert len(rows) == 2 * 2 * 6
    assert set(rows[0]) >= {"arm", "batch_size", "step", "ms", "rss_mb"}
    assert float(rows[0]["rss_mb"]) > 0
    # the printed table
    assert "speedup" in stdout and "aot_eager" in stdout and "compile s" in stdout


def test_rounds_and_blocks_alternate_and_compiles_end_before_timing(tmp_path):
    rc, *_ = run_cli(
        [
            "--example",
            "simple",
            "--arms",
            "eager,aot_eager",
            "--batch-sizes",
            "8",
            "--warmup",
            "1",
            "--steps",
            "6",
            "--blocks",
            "3",
            "--replicates",
            "2",
            "--min-block-ms",
            "0",
            "--no-accuracy",
            "--quiet",
        ],
        tmp_path,
    )
    assert rc == 0
    ev = events(tmp_path)
    order = [(e["replicate"], e["arm"]) for e in ev if e["type"] == "block_done"]
    # ABBA across blocks within a round, and the round order reversed in the second round
    assert order == [(0, 0), (0, 1), (0, 1), (0, 0), (0, 0), (0, 1)] + [
        (1, 1),
        (1, 0),
        (1, 0),
        (1, 1),
        (1, 1),
        (1, 0),
    ]
    for rep in (0, 1):
        mine = [(i, e) for i, e in enumerate(ev) if e.get("replicate") == rep]
        last_warmup = max(i for i, e in mine if e["type"] == "steps" and e["phase"] == "warmup")
        first_block = min(i for i, e in mine if e["type"] == "steps" and e["phase"] == "measure")
        assert last_warmup < first_block, "every arm compiles and warms up before timing starts"
    starts = [(e["replicate"], e["arm"]) for e in ev if e["type"] == "arm_start"]
    assert sorted(starts) == [(0, 0), (0, 1), (1, 0), (1, 1)], "a fresh process per arm per round"
    pids = {(e["replicate"], e["arm"]): e["pid"] for e in ev if e["type"] == "hello"}
    assert len(set(pids.values())) == 4


def test_sequential_mode_runs_one_arm_after_another(tmp_path):
    rc, _, _, s = run_cli(
        [
            "--example",
            "simple",
            "--arms",
            "eager,aot_eager",
            "--batch-sizes",
            "8",
            "--sequential",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    assert rc == 0
    ev = events(tmp_path)
    order = [e["arm"] for e in ev if e["type"] == "block_done"]
    assert order == [0, 0, 1, 1]
    exits = [i for i, e in enumerate(ev) if e["type"] == "worker_exit"]
    starts = [i for i, e in enumerate(ev) if e["type"] == "arm_start"]
    assert exits[0] < starts[1], "the second worker must start after the first one ended"
    assert all(r["status"] == "ok" for a in s["arms"] for r in a["results"])


def test_gpt_style_file_through_factory(tmp_path):
    rc, stdout, _, s = run_cli(
        [
            str(MODELS / "gpt_config.py"),
            "--factory",
            "GPT(GPTConfig(n_layer=2, n_embd=32))",
            "--arms",
            "eager,aot_eager",
            "--batch-sizes",
            "4",
            *FAST_CHECKED,
        ],
        tmp_path,
    )
    assert rc == 0, stdout
    model = arm(s, "eager")["model"]
    assert model["model"] == "GPT(GPTConfig(n_layer=2, n_embd=32))"
    assert "int" in model["input"]
    assert arm(s, "aot_eager")["results"][0]["accuracy"]["status"] == "pass"
    logs = [e["text"] for e in events(tmp_path) if e["type"] == "log"]
    assert any("building GPT" in t for t in logs), "the model's own prints arrive as log lines"


def test_gpt_style_file_without_factory_explains_what_to_do(tmp_path):
    rc, stdout, stderr, s = run_cli(
        [str(MODELS / "gpt_config.py"), "--arms", "eager", *FAST], tmp_path
    )
    assert rc == 1
    message = arm(s, "eager")["error"]["message"]
    assert "--factory" in message and "GPT" in message


def test_user_prints_cannot_corrupt_the_event_channel(tmp_path):
    rc, _, _, s = run_cli(
        [
            str(MODELS / "chatty.py"),
            "--arms",
            "eager,aot_eager",
            "--batch-sizes",
            "4",
            *FAST,
            "--no-accuracy",
        ],
        tmp_path,
    )
    assert rc == 0
    assert all(a["error"] is None for a in s["arms"])
    texts = [e["text"] for e in events(tmp_path) if e["type"] == "log"]
    assert any('"kind": "fake"' in t for t in texts)


def test_examples_all_run_eagerly(tmp_path):
    for name in ("mlp", "cnn", "tiny_gpt", "graph_break"):
        rc, stdout, stderr, s = run_cli(
            [
                "--example",
                name,
                "--arms",
                "eager",
                "--batch-sizes",
                "2",
                "--warmup",
                "0",
                "--steps",
                "2",
                "--blocks",
                "1",
                "--min-block-ms",
                "0",
                "--quiet",
            ],
            tmp_path / name,
        )
        assert rc == 0, (name, stdout, stderr)
        assert s["arms"][0]["results"][0]["status"] == "ok", name
