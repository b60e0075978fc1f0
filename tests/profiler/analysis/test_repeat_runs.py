"""bench/repeat_runs.py reads what Cochran's Q needs from saved sessions (the se the paired t
used, its degrees of freedom, the interval's own level) and from the known-truth record (the
rounds its blocks show, or each planned look where they show none); bench/known_truth.py now
records them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from bench import repeat_runs
from bench.known_truth import figures
from tcprof.profiler.analysis import heterogeneity as het
from tcprof.profiler.analysis import stopping
from tests.support.simulated_family import family_session

pytestmark = pytest.mark.timeout(60)


def _saved(folder: Path, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    eager = 10.0 * np.exp(rng.normal(0, 0.05, 6))
    inductor = eager / 1.1 * np.exp(rng.normal(0, 0.03, 6))
    session = family_session(np.stack([eager, inductor])[:, :, None], stop_early=True, seed=seed)
    folder.mkdir()
    (folder / "session.json").write_text(json.dumps(session), encoding="utf-8")
    return folder


def test_session_lines_carry_the_runs_se_df_and_level(tmp_path):
    folders = [_saved(tmp_path / f"s{i}", i) for i in range(3)]
    lines = [line for f in folders for line in repeat_runs.session_lines(f, {"wall_s": 1.0})]
    assert len(lines) == 3
    row = json.loads((folders[0] / "session.json").read_text())["arms"][1]["results"][0]
    first = lines[0]
    assert first["se"] == pytest.approx(row["speedup_se_log"])
    assert (first["rounds"], first["df"], first["wall_s"]) == (6, 5, 1.0)
    assert first["level"] == pytest.approx(stopping.make_plan(2).level)
    text = "\n".join(repeat_runs.summary(lines))
    assert "Q = " in text and "calibrated p" in text and "median half-width" in text


def _record(path: Path, rounds: int | None) -> None:
    lines = []
    for seed, point in enumerate((0.49, 0.51, 0.53)):
        interval = [point / 1.08, point * 1.08]
        blocks = [{"arm": "repeat2", "round": r} for r in range(rounds or 0)]
        lines.append(
            {"workload": "w", "seed": seed, "repeat2": [point, interval], "blocks": blocks}
        )
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")


def test_known_truth_rounds_from_the_blocks_else_each_look(tmp_path):
    record = tmp_path / "kt.jsonl"
    _record(record, 8)
    (reading,) = repeat_runs.known_truth_lines(record)
    level = stopping.make_plan(repeat_runs.KNOWN_TRUTH_ARMS).level
    assert {line["rounds"] for line in reading} == {8}
    expected = het.se_from_interval(0.49 / 1.08, 0.49 * 1.08, level, 8)
    assert reading[0]["se"] == pytest.approx(expected)
    _record(record, None)
    readings = repeat_runs.known_truth_lines(record)
    assert [r[0]["rounds"] for r in readings] == list(stopping.make_plan(4).looks)


def test_known_truth_records_rounds_level_and_df():
    row = {"speedup": 0.5, "speedup_ci": [0.46, 0.54], "speedup_rounds": 8}
    row |= {"speedup_se_log": 0.03, "process_medians_ms": [1.0] * 8, "aa_speedup": 1.0}
    row |= {"aa_ci": [0.9, 1.1]}
    names = ("eager", "repeat2", "eager-control", "repeat2-control")
    session = {
        "arms": [{"name": n, "results": [row]} for n in names],
        "config": {"stop_early": True, "replicates": 8, "arms": [{}] * 4},
        "rounds": [],
    }
    found = figures(session)
    assert (found["rounds"], found["df"], found["se"]) == (8, 7, 0.03)
    assert found["level"] == pytest.approx(stopping.make_plan(4).level)
    assert math.isclose(found["level"], 0.9696, abs_tol=1e-3)
