"""The Session folds events exactly; no worker needed."""

from __future__ import annotations

import json

from profiler.config import ArmSpec, ModelSource, RunConfig
from profiler.events import encode
from profiler.outputs import steps_rows, write_all
from profiler.session import Session


def _events(eager_ms, arm_ms, arm_loss=1.0):
    cfg = RunConfig(
        ModelSource("m.py"),
        arms=(ArmSpec("eager"), ArmSpec("inductor")),
        batch_sizes=(8,),
        warmup=1,
        steps=len(eager_ms),
    )
    ev = [{"type": "run_start", "config": cfg.to_dict(), "wall_time": 1.0}]
    for i, (ms, loss, peak) in enumerate(((eager_ms, 1.0, 400.0), (arm_ms, arm_loss, 200.0))):
        ev += [
            {"type": "phase", "arm": i, "phase": "compiling", "batch_size": 8},
            {
                "type": "first_step",
                "arm": i,
                "batch_size": 8,
                "ms": 1000.0 + ms[0],
                "loss": loss,
                "grad_norm": 2.0,
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
                "rss_mb": peak,
                "cuda_alloc_mb": None,
                "cuda_reserved_mb": None,
            },
            {"type": "bs_done", "arm": i, "batch_size": 8, "peak_rss_mb": peak, "last_loss": 0.5},
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
    ev.append({"type": "run_end", "status": "completed", "wall_time": 2.0})
    return ev


def test_rows_are_derived_exactly():
    s = Session()
    for e in _events([4.0, 4.0, 4.0, 4.0], [2.0, 2.0, 2.0, 2.0]):
        s.apply(e)
    d = s.to_dict()
    eager, ind = d["arms"][0]["results"][0], d["arms"][1]["results"][0]
    assert eager["median_ms"] == 4.0 and eager["speedup"] is None and eager["compile_s"] is None
    assert ind["speedup"] == 2.0 and ind["speedup_ci"] == [2.0, 2.0]
    assert ind["samples_per_s"] == 8 / 0.002
    assert ind["compile_s"] == (1002.0 - 2.0) / 1000
    assert ind["break_even_steps"] == 1.0 * 1000 / 2.0
    assert ind["memory_ratio"] == 2.0
    assert ind["accuracy"]["status"] == "pass"
    assert ind["compile_status"] == "compiled"
    assert d["baseline"] == "eager"


def test_accuracy_failure_is_shown_not_hidden():
    s = Session()
    for e in _events([4.0] * 3, [2.0] * 3, arm_loss=1.5):
        s.apply(e)
    row = s.to_dict()["arms"][1]["results"][0]
    assert row["accuracy"]["status"] == "fail" and row["speedup"] == 2.0


def test_interrupted_run_is_recovered_from_events_with_a_torn_last_line(tmp_path):
    path = tmp_path / "events.jsonl"
    ev = _events([4.0] * 3, [2.0] * 3)[:-3]  # cut before the end
    path.write_bytes(b"".join(encode(e) for e in ev) + b'{"type": "ste')
    s = Session.from_events(path)
    assert s.status == "interrupted"
    assert s.to_dict()["arms"][0]["results"][0]["median_ms"] == 4.0


def test_files_are_strict_json_and_csv(tmp_path):
    s = Session()
    for e in _events([4.0, float("nan")], [2.0, 2.0]):
        s.apply(e)
    write_all(s, tmp_path)
    text = (tmp_path / "session.json").read_text()
    assert "NaN" not in text
    json.loads(text)
    assert len(steps_rows(s)) == 4
    assert steps_rows(s)[0][:3] == ["eager", 8, 2]
