"""A session logged to TensorBoard, read back with TensorBoard's own reader and checked against
session.json and steps.csv; a folder that cannot be written is one warning, the session kept."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tcprof.profiler.analysis.verdict import session_verdicts, speedup_interval, speedup_settled
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.report.markdown import md_text
from tcprof.profiler.trackers import log_session
from tests.support.tensorboard_read import accumulator, hparams, series, tags

pytestmark = [pytest.mark.tracker, pytest.mark.timeout(240)]


def _session(folder: Path) -> dict:
    return json.loads((folder / "session.json").read_text())


def _steps_csv(folder: Path) -> dict[tuple[str, int], list[dict[str, str]]]:
    rows: dict[tuple[str, int], list[dict[str, str]]] = {}
    with open(folder / "steps.csv", newline="") as f:
        for row in csv.DictReader(f):
            rows.setdefault((row["arm"], int(row["batch_size"])), []).append(row)
    return rows


@pytest.fixture(scope="module")
def logged(saved_session, tmp_path_factory):
    """The shared session logged once to a TensorBoard folder: (its runs' folder, lines)."""
    logdir = tmp_path_factory.mktemp("tb")
    lines: list[str] = []
    warnings = log_session(saved_session, [f"tensorboard:{logdir}"], on_logged=lines.append)
    assert warnings == []
    return logdir / saved_session.name, lines


def test_one_run_per_arm(logged, saved_session):
    runs, lines = logged
    names = [a["name"] for a in _session(saved_session)["arms"]]
    assert sorted(p.name for p in runs.iterdir()) == sorted(names)
    assert lines == [f"logged to TensorBoard: {runs} (tensorboard --logdir {runs.parent})"]


def test_step_time_throughput_and_memory_per_step_are_steps_csv(logged, saved_session):
    runs, _ = logged
    for (arm, bs), rows in _steps_csv(saved_session).items():
        acc = accumulator(runs / arm)
        step_ms = series(acc, f"step_ms/bs{bs}")
        rate = series(acc, f"throughput/bs{bs}")
        assert sorted(step_ms) == [int(r["step"]) for r in rows]  # every measured step
        for r in rows:
            step, ms = int(r["step"]), float(r["ms"])
            assert step_ms[step] == pytest.approx(ms, rel=1e-6)  # float32 in the event file
            assert rate[step] == pytest.approx(bs * 1000.0 / ms, rel=1e-6)
        rss = series(acc, f"rss_mb/bs{bs}")
        with_memory = {int(r["step"]): float(r["rss_mb"]) for r in rows if r["rss_mb"]}
        assert with_memory, "the first round reads memory"
        assert rss == pytest.approx(with_memory, rel=1e-6)
        assert f"cuda_alloc_mb/bs{bs}" not in tags(acc)  # a CPU run has no CUDA column


def test_headline_figures_per_batch_size_are_session_json(logged, saved_session):
    runs, _ = logged
    for arm in _session(saved_session)["arms"]:
        acc = accumulator(runs / arm["name"])
        median = series(acc, "headline/median_ms")
        assert median == pytest.approx({r["batch_size"]: r["median_ms"] for r in arm["results"]})
        if arm["name"] == _session(saved_session)["baseline"]:
            assert "headline/speedup" not in tags(acc)  # the baseline has no speedup
            continue
        speedup = series(acc, "headline/speedup") if "headline/speedup" in tags(acc) else {}
        low = series(acc, "headline/speedup_ci_low") if r_ci(arm) else {}
        high = series(acc, "headline/speedup_ci_high") if r_ci(arm) else {}
        compile_s = series(acc, "headline/compile_s")
        for r in arm["results"]:
            bs = r["batch_size"]
            if speedup_settled(r):  # the one rule: an unsettled speedup is no headline
                assert speedup[bs] == pytest.approx(r["speedup"], rel=1e-6)
            else:
                assert bs not in speedup
            if speedup_interval(r):
                assert [low[bs], high[bs]] == pytest.approx(r["speedup_ci"], rel=1e-6)
            else:
                assert bs not in low, "one round: no interval is logged"
            assert compile_s[bs] == pytest.approx(r["compile_s"], rel=1e-6)


def r_ci(arm):
    return any(speedup_interval(r) for r in arm["results"])


def test_compile_markers_at_the_step_that_compiled(logged, saved_session):
    runs, _ = logged
    session = _session(saved_session)
    for arm in session["arms"]:
        acc = accumulator(runs / arm["name"])
        marker_tags = [t for t in tags(acc) if t.startswith("compile/")]
        if arm["backend"] == "eager":
            assert marker_tags == []
            continue
        for r in arm["results"]:
            first = series(acc, f"compile/bs{r['batch_size']}")[0]
            assert f"first step {units.ms(r['first_step_ms'])}" in first
            assert f"compile {r['compile_s']:.2f} s" in first
        assert arm["recompiles"], "the second batch size recompiles under dynamic=None"
        for rc in arm["recompiles"]:
            text = series(acc, f"compile/bs{rc['batch_size']}")[rc["step"]]
            assert f"recompile ({rc['seconds']:.2f} s) at simple.py:{rc['line']}" in text


def test_table_verdict_and_hparams(logged, saved_session):
    runs, _ = logged
    session = _session(saved_session)
    verdicts = {v.arm: v.text for v in session_verdicts(SessionModel.read(session))}
    for arm in session["arms"]:
        acc = accumulator(runs / arm["name"])
        table = series(acc, "summary/table")[0]
        rows = [
            line for line in table.splitlines() if line.startswith(f"| {md_text(arm['name'])} |")
        ]
        assert len(rows) == len(arm["results"])  # this arm's rows, one per batch size
        verdict = series(acc, "summary/verdict")[0]
        if arm["name"] == session["baseline"]:
            assert verdict.startswith(f"{arm['name']} is the baseline")
            whole = series(acc, "session/table")[0]
            assert len(whole.splitlines()) == 2 + sum(len(a["results"]) for a in session["arms"])
            assert md_text(verdicts["aot_eager"]) in series(acc, "session/verdict")[0]
        else:
            assert verdict == md_text(verdicts[arm["name"]])
            assert "session/table" not in tags(acc)
        params = hparams(acc)
        config = session["config"]
        assert params["arm.backend"] == arm["backend"]
        assert params["arm.baseline"] is (arm["name"] == session["baseline"])
        assert params["steps"] == config["steps"] and params["device"] == config["device"]
        assert params["batch_sizes"] == ",".join(str(b) for b in config["batch_sizes"])
        assert params["debug.explain"] is config["debug"]["explain"]
        assert params["environment.torch"] == session["environment"]["torch"]


def test_logging_again_replaces_the_earlier_log(session_copy):
    for _ in range(2):
        assert log_session(session_copy, ["tensorboard"]) == []  # the default folder
    runs = session_copy / "tensorboard" / session_copy.name
    for run in runs.iterdir():
        assert len(list(run.glob("events.out.tfevents.*"))) == 1
    rows = _steps_csv(session_copy)[("eager", 8)]
    assert len(series(accumulator(runs / "eager"), "step_ms/bs8")) == len(rows)


def test_an_unwritable_folder_is_one_warning_and_the_other_tracker_still_logs(session_copy):
    blocked = session_copy / "not-a-folder"
    blocked.write_text("a file where the log folder should be")
    before = (session_copy / "session.json").read_bytes()
    lines: list[str] = []
    good = session_copy / "tb-ok"
    warnings = log_session(
        session_copy, [f"tensorboard:{blocked}", f"tensorboard:{good}"], on_logged=lines.append
    )
    assert len(warnings) == 1
    assert warnings[0].startswith(f"could not log to tensorboard:{blocked}: ")
    assert "\n" not in warnings[0]
    assert len(lines) == 1 and str(good) in lines[0]
    assert (session_copy / "session.json").read_bytes() == before  # nothing lost


def test_a_folder_without_a_session_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="session file not found"):
        log_session(tmp_path, ["tensorboard"])
    with pytest.raises(ValueError, match="unknown tracker"):
        log_session(tmp_path, ["tensorbored"])  # the specs are checked first
