"""A script described in its own words: its model named by the script's variable (never a
method's `self`), the files it wrote without the compiler's own, and its throughput in its
own unit (tokens of a language model, every micro-batch of an accumulating step summed). One
real run of a tiny token-id language model (tests/support/scripts/tiny_lm_accumulate.py),
eager and aot_eager, its worker driven in this process; the `--unit` override refolds the
same events."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.report.html import chart_data, render_html
from tcprof.profiler.session.fold import SessionFold
from tcprof.profiler.worker.script import files as script_files
from tests.support.paths import ROOT
from tests.support.script_harness import of_type, schedule, script_config, serve

pytestmark = pytest.mark.timeout(180, method="thread")
B, T, ACCUM = 3, 5, 2  # the script's batch, sequence and micro-batches per optimizer step


def _fold(cfg, per_arm, unit=None):
    config = cfg.to_dict()
    config["script"]["unit"] = unit
    events = [{"type": "run_start", "config": config, "wall_time": 0.0}]
    for arm, arm_events in enumerate(per_arm):
        events += [{**e, "arm": arm, "replicate": 0} for e in arm_events]
    events.append({"type": "run_end", "status": "completed", "wall_time": 1.0})
    return SessionFold.from_events(events).to_dict()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lm")
    path = folder / "tiny_lm_accumulate.py"
    shutil.copy(ROOT / "tests" / "support" / "scripts" / path.name, path)
    cfg = script_config(
        path, arms=(ArmSpec("eager"), ArmSpec("aot_eager")), warmup=1, steps=4, blocks=1
    )
    per_arm = [serve(schedule(cfg, arm)) for arm in (0, 1)]
    return cfg, per_arm, folder


def test_the_model_is_the_scripts_variable_not_the_methods_self(run):
    _, per_arm, _ = run
    for events in per_arm:
        models = [e["text"] for e in of_type(events, "script") if e["kind"] == "model"]
        assert len(models) == 1 and models[0].startswith("the model is `model`, TinyLM (")
        assert "`self`" not in " ".join(e.get("text", "") for e in of_type(events, "script"))
    in_place = [e["text"] for e in of_type(per_arm[1], "script") if e["kind"] == "in_place"]
    assert in_place[0].startswith("`model`, TinyLM (tiny_lm_accumulate.py:")


def test_each_step_counts_the_tokens_of_every_micro_batch(run):
    _, per_arm, _ = run
    for events in per_arm:
        steps = [e for e in of_type(events, "steps")]
        assert steps and all(e["tokens"] == [ACCUM * B * T] * len(e["ms"]) for e in steps)
        assert all(e["samples"] == [ACCUM * B] * len(e["ms"]) for e in steps)


def test_only_the_scripts_own_file_is_listed_while_it_compiles(run):
    _, per_arm, folder = run
    for events in per_arm:
        files = [e for e in of_type(events, "script") if e["kind"] == "files"]
        assert [f["path"] for f in files[0]["files"]] == [str(folder / "lm_log.txt")]


def test_the_rows_throughput_is_tokens_per_second_of_the_measured_step(run):
    cfg, per_arm, _ = run
    data = _fold(cfg, per_arm)
    assert session_problem(data) is None
    for arm in data["arms"]:
        row = arm["results"][0]
        fig = row["script"]
        assert fig["unit"] == "tokens" and fig["padding_counted"] is True
        assert fig["tokens_per_step"] == ACCUM * B * T and fig["samples_per_step"] == ACCUM * B
        assert fig["tokens_per_s"] == pytest.approx(ACCUM * B * T * 1000 / row["median_ms"])
        assert fig["work_per_s"] == fig["tokens_per_s"]
        assert row["samples_per_s"] == pytest.approx(ACCUM * B * 1000 / row["median_ms"])


def test_the_views_show_tokens_per_step_and_per_second_not_bs_1(run):
    cfg, per_arm, _ = run
    data = _fold(cfg, per_arm)
    text = render_summary(SessionModel.read(data))
    header = next(line for line in text.splitlines() if line.lstrip().startswith("arm"))
    assert "tokens/s" in header and "per step" in header and "samples/s" not in header
    assert f"{ACCUM * B * T} tokens" in text and "padding counted" in text
    assert " bs " not in header and "bs 1" not in text
    charts = chart_data(SessionModel.read(data))
    assert charts["throughput"]["unit"] == "tokens"
    assert charts["throughput"]["work"]["aot_eager"]["1"] == ACCUM * B * T
    html = render_html(SessionModel.read(data))
    assert "tokens/s" in html and "padding counted" in html


def test_the_unit_given_overrides_what_the_inputs_show(run):
    cfg, per_arm, _ = run
    data = _fold(cfg, per_arm, unit="samples")
    row = data["arms"][1]["results"][0]
    assert row["script"]["unit"] == "samples"
    assert row["script"]["work_per_s"] == pytest.approx(ACCUM * B * 1000 / row["median_ms"])
    header = next(
        line
        for line in render_summary(SessionModel.read(data)).splitlines()
        if line.lstrip().startswith("arm")
    )
    assert "samples/s" in header and "tokens/s" not in header
    steps = _fold(cfg, per_arm, unit="steps")["arms"][0]["results"][0]
    assert steps["script"]["work_per_s"] == pytest.approx(1000 / steps["median_ms"])


def test_the_compilers_own_files_are_left_out_by_where_they_live(tmp_path, monkeypatch):
    """Inductor preprocesses its precompiled header in a tempfile folder
    (<tmp>/tmpXXXXXXXX/header.hpp) and sets its cache folder in the environment at its first
    use, after the listing began; Triton caches under ~/.triton."""
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    own = tmp_path / "out" / "header.hpp"  # the script's, whatever its name
    own.parent.mkdir()
    cache = tmp_path / "inductor-cache"
    script_files.begin([])
    try:
        with tempfile.TemporaryDirectory() as scratch:
            with open(os.path.join(scratch, "header.hpp"), "w") as f:
                f.write("#include <ATen/ATen.h>\n")
        monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(cache))
        cache.mkdir()
        (cache / "kernel.cpp").write_text("")
        (tmp_path / "home" / ".triton" / "cache").mkdir(parents=True)
        (tmp_path / "home" / ".triton" / "cache" / "k.json").write_text("")
        own.write_text("mine")
    finally:
        written = script_files.end()
    assert [w["path"] for w in written] == [str(own)]


def test_the_trackers_steps_count_the_samples_the_script_gave_its_model(run):
    from tcprof.profiler.trackers.content import step_series

    cfg, per_arm, _ = run
    series = step_series(SessionModel.from_json(_fold(cfg, per_arm)))["aot_eager"][0]
    assert series.throughput == pytest.approx([ACCUM * B * 1000.0 / m for m in series.ms])
