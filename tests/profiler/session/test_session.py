"""The SessionFold folds events exactly; no worker needed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.folders.files import iter_events, write_session_files
from tcprof.profiler.folders.steps_csv import steps_rows
from tcprof.profiler.protocol.wire import encode
from tcprof.profiler.session.fold import SessionFold


def _events(eager_ms, arm_ms, accuracy="pass"):
    cfg = RunConfig(
        ModelSource("m.py"),
        arms=(ArmSpec("eager"), ArmSpec("inductor")),
        batch_sizes=(8,),
        warmup=1,
        steps=len(eager_ms),
        replicates=1,
    )
    ev = [{"type": "run_start", "config": cfg.to_dict(), "wall_time": 1.0}]
    # eager's first step costs 100 ms more than a steady one (one-off costs both arms pay);
    # the compiled arm's first step costs 1000 ms more: 900 ms of it is compiling.
    for i, (ms, excess, peak) in enumerate(((eager_ms, 100.0, 4.0), (arm_ms, 1000.0, 2.0))):
        ev += [
            {"type": "phase", "arm": i, "phase": "compiling", "batch_size": 8},
            {
                "type": "first_step",
                "arm": i,
                "batch_size": 8,
                "ms": excess + ms[0],
                "loss": 1.0,
                "grad_norm": 2.0,
                "compile_peak_mb": 300.0,
            },
            {
                "type": "steps",
                "arm": i,
                "batch_size": 8,
                "phase": "warmup",
                "start": 1,
                "ms": [9.0],
            },
            {"type": "steps", "arm": i, "batch_size": 8, "phase": "measure", "start": 2, "ms": ms},
            {
                "type": "memory",
                "arm": i,
                "batch_size": 8,
                "step": 1 + len(ms),
                "rss_mb": 400.0,
                "cuda_alloc_mb": None,
                "cuda_reserved_mb": None,
            },
            {
                "type": "bs_done",
                "arm": i,
                "batch_size": 8,
                "peak_rss_mb": 400.0,
                "steady_peak_mb": peak,
                "last_loss": 0.5,
            },
        ]
    ev[8:8] = [
        {
            "type": "compile",
            "arm": 1,
            "batch_size": 8,
            "step": 0,
            "kind": "first",
            "seconds": 0.9,
            "reason": None,
        }
    ]
    ev.append(
        {
            "type": "accuracy",
            "arm": 1,
            "replicate": "accuracy",
            "batch_size": 8,
            "status": accuracy,
            "worst": {"name": "fc.weight", "max_abs_err": 0.5, "max_rel_err": 0.25},
            "reason": None if accuracy == "pass" else "gradient of fc.weight differs",
        }
    )
    ev.append({"type": "run_end", "status": "completed", "wall_time": 2.0})
    return ev


def test_rows_are_derived_exactly():
    s = SessionFold()
    for e in _events([4.0, 4.0, 4.0, 4.0], [2.0, 2.0, 2.0, 2.0]):
        s.apply(e)
    d = s.to_dict()
    assert d["schema_version"] == 4
    eager, ind = d["arms"][0]["results"][0], d["arms"][1]["results"][0]
    assert eager["median_ms"] == 4.0 and eager["speedup"] is None and eager["compile_s"] is None
    assert eager["accuracy"] is None, "eager is the reference, not checked"
    assert ind["speedup"] == 2.0 and ind["speedup_ci"] is None, "one round: no 95% interval"
    assert ind["speedup_ci_one_process"] == [2.0, 2.0] and ind["verdict"] == "no_interval"
    assert ind["speedup_method"] == "steps_bootstrap" and ind["interval_covers_processes"] is False
    assert ind["process_medians_ms"] == [2.0] and ind["replicates"] == 1
    assert ind["samples_per_s"] == 8 / 0.002
    assert ind["compile_s"] == ind["compile_cold_s"] == (1000.0 - 100.0) / 1000
    assert ind["compile_warm_s"] is None and "one replicate" in ind["compile_missing"]["warm"]
    assert ind["break_even_steps"] is None and ind["break_even_cold_steps"] is None, (
        "one round: the speedup has no interval, so no payback figure"
    )
    assert ind["memory_ratio"] == 2.0 and ind["steady_peak_mb"] == 2.0
    assert ind["compile_peak_mb"] == 300.0
    assert ind["accuracy"]["status"] == "pass" and ind["accuracy"]["worst"]["name"] == "fc.weight"
    assert ind["compile_status"] == "compiled"
    assert d["baseline"] == "eager"


def test_accuracy_failure_is_shown_not_hidden():
    s = SessionFold()
    for e in _events([4.0] * 3, [2.0] * 3, accuracy="fail"):
        s.apply(e)
    row = s.to_dict()["arms"][1]["results"][0]
    assert row["accuracy"]["status"] == "fail" and row["speedup"] == 2.0


def test_interrupted_run_is_recovered_from_events_with_a_torn_last_line(tmp_path):
    path = tmp_path / "events.jsonl"
    ev = _events([4.0] * 3, [2.0] * 3)[:-4]  # cut before the end
    path.write_bytes(b"".join(encode(e) for e in ev) + b'{"type": "ste')
    s = SessionFold.from_events(iter_events(path))
    assert s.status == "interrupted"
    assert s.to_dict()["arms"][0]["results"][0]["median_ms"] == 4.0


def test_files_are_strict_json_and_csv(tmp_path):
    s = SessionFold()
    for e in _events([4.0, float("nan")], [2.0, 2.0]):
        s.apply(e)
    written = write_session_files(s.to_dict(), tmp_path)
    assert written == [tmp_path / "session.json", tmp_path / "steps.csv"]
    text = (tmp_path / "session.json").read_text()
    assert "NaN" not in text
    saved = json.loads(text)
    assert saved["samples"][0]["ms"] == [4.0, None]
    rows = steps_rows(saved)
    assert len(rows) == 4
    assert rows[0][:5] == ["eager", 8, 0, 0, 2]
    csv_lines = (tmp_path / "steps.csv").read_text().splitlines()
    assert len(csv_lines) == 5 and csv_lines[2].split(",")[5] == ""  # NaN: an empty cell


def _round_events(rep, cache, arm, first_ms, ms, block_split=2, cache_hits=0, compile_s=0.5):
    """One process of one arm in round `rep`: first step (arm 1 compiles for `compile_s` by
    torch's events), then measured blocks."""
    out = [
        {"type": "arm_start", "arm": arm, "replicate": rep, "cache": cache},
        {"type": "first_step", "arm": arm, "replicate": rep, "batch_size": 8, "ms": first_ms},
    ]
    if arm == 1:
        out.append(
            {
                "type": "compile",
                "arm": 1,
                "replicate": rep,
                "batch_size": 8,
                "step": 0,
                "kind": "first",
                "seconds": compile_s,
                "fx_cache_hits": cache_hits,
                "fx_cache_misses": 1 - cache_hits,
            }
        )
    half = len(ms) // block_split
    for block in range(block_split):
        chunk = ms[block * half : (block + 1) * half]
        out += [
            {
                "type": "steps",
                "arm": arm,
                "replicate": rep,
                "batch_size": 8,
                "phase": "measure",
                "block": block,
                "start": 1,
                "ms": chunk,
            },
            {
                "type": "block_done",
                "arm": arm,
                "replicate": rep,
                "batch_size": 8,
                "block": block,
                "steps": len(chunk),
                "quiet": not (rep == 2 and block == 1),
            },
        ]
    out.append(
        {"type": "bs_done", "arm": arm, "replicate": rep, "batch_size": 8, "steady_peak_mb": 1.0}
    )
    return out


def test_a_run_that_did_not_ask_for_the_portable_round_says_so():
    """--portable-round is off by default: three rounds are cold, warm, warm, and the missing
    portable figure names the option rather than blaming the run."""
    cfg = RunConfig(
        ModelSource("m.py"),
        arms=(ArmSpec("eager"), ArmSpec("inductor")),
        batch_sizes=(8,),
        replicates=3,
    )
    ev = [{"type": "run_start", "config": cfg.to_dict(), "wall_time": 1.0}]
    for rep, cache in enumerate(["cold", "warm", "warm"]):
        ev += _round_events(rep, None, 0, 54.0, [4.0] * 4)
        comp = 20_000.0 if rep == 0 else 2_000.0
        ev += _round_events(
            rep, cache, 1, 52.0 + comp, [2.0] * 4, cache_hits=int(rep > 0), compile_s=comp / 1e3
        )
    ev.append({"type": "run_end", "status": "completed", "wall_time": 2.0})
    s = SessionFold()
    for e in ev:
        s.apply(e)
    ind = s.to_dict()["arms"][1]["results"][0]
    assert ind["compile_portable_s"] is None
    assert ind["compile_missing"]["portable"] == "not asked for (--portable-round)"
    assert ind["compile_warm_s"] == pytest.approx(2.0)


def test_replicates_cold_warm_portable_and_the_control():
    cfg = RunConfig(
        ModelSource("m.py"),
        arms=(ArmSpec("eager"), ArmSpec("inductor")),
        batch_sizes=(8,),
        replicates=3,
        control=True,
    )
    ev = [{"type": "run_start", "config": cfg.to_dict(), "wall_time": 1.0}]
    shifts = [1.0, 1.1, 0.9]  # the machine in each round
    caches = ["cold", "portable", "warm"]
    compile_ms = [20_000.0, 5_000.0, 2_000.0]
    noise = [1.01, 0.98, 1.02]  # eager against eager: a few percent either way
    for rep, (shift, cache, comp) in enumerate(zip(shifts, caches, compile_ms, strict=True)):
        ev += _round_events(rep, None, 0, 4.0 * shift + 50.0, [4.0 * shift] * 4)
        ev += _round_events(
            rep,
            cache,
            1,
            2.0 * shift + 50.0 + comp,
            [2.0 * shift] * 4,
            cache_hits=int(rep > 0),
            compile_s=comp / 1000.0,
        )
        control_ms = 4.0 * shift * noise[rep]
        ev += _round_events(rep, None, 2, control_ms + 50.0, [control_ms] * 4)
    ev.append({"type": "run_end", "status": "completed", "wall_time": 2.0})
    s = SessionFold()
    for e in ev:
        s.apply(e)
    d = s.to_dict()
    assert [a["name"] for a in d["arms"]] == ["eager", "inductor", "eager-control"]
    assert "eager-control" not in [a.get("label") for a in d["config"]["arms"]]
    ind = d["arms"][1]["results"][0]
    assert ind["process_medians_ms"] == [2.0, 2.2, 1.8] and ind["median_ms"] == 2.0
    assert ind["replicates"] == 3 and ind["speedup_method"] == "paired_t"
    assert ind["speedup"] == pytest.approx(2.0) and ind["interval_covers_processes"]
    assert ind["compile_cold_s"] == pytest.approx(20.0)
    assert ind["compile_portable_s"] == pytest.approx(5.0)
    assert ind["compile_warm_s"] == pytest.approx(2.0)
    assert ind["break_even_cold_steps"] == pytest.approx(20_000 / 2.0)
    assert ind["break_even_warm_steps"] == pytest.approx(2_000 / 2.0)
    assert ind["compile_cache"]["cold"]["fx_misses"] == 1
    assert ind["compile_cache"]["warm"]["fx_hits"] == 1
    assert ind["unquiet_blocks"] == 1
    assert ind["verdict"] == "faster"
    control = d["arms"][2]["results"][0]
    geometric = float(np.exp(-np.mean(np.log(noise))))  # the centre of the paired interval
    assert control["speedup"] == pytest.approx(geometric)
    assert control["verdict"] == "no_difference"
    assert control["speedup_ci"][0] < 1.0 < control["speedup_ci"][1]
    assert (control["aa_of"], control["aa_flagged"]) == ("eager", False)
    assert control["aa_speedup"] == pytest.approx(geometric) and ind["aa_of"] is None
    # the baseline's rounds (4.0, 4.4, 3.6) save 2.0, 2.2, 1.8 ms a step: their spread widens
    # break-even (t with 2 degrees of freedom) though the speedup is exactly 2 in every round
    half = 4.302652729911275 * 0.2 / np.sqrt(3)
    assert ind["break_even_cold_ci"] == pytest.approx([20_000 / (2 + half), 20_000 / (2 - half)])
    assert ind["compile_rounds"]["cold"] == [[0, pytest.approx(20.0)]]
    assert d["comparisons"]["count"] == 1 and d["comparisons"]["adjustment"] == "bonferroni"
    assert ind["holds_after_adjustment"] is True and control["holds_after_adjustment"] is None
    samples = next(x for x in d["samples"] if x["arm"] == "inductor")
    assert samples["blocks"] == [[r, b, 2] for r in range(3) for b in range(2)]
