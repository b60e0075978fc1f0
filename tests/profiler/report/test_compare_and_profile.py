from __future__ import annotations

import copy
import json
import math

import pytest

from tcprof.profiler.cli.main import main
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.report import compare
from tcprof.profiler.report.compare import render, render_comparison
from tests.support.cli import arm, run_cli


def diff_sessions(before, after, **margin):
    """compare's diff of two session.json dicts, each read into the model first."""
    return compare.diff_sessions(
        SessionModel.from_json(before), SessionModel.from_json(after), **margin
    )


def compare_sessions(before, after):
    return compare.compare_sessions(SessionModel.from_json(before), SessionModel.from_json(after))


def _result(median, peak=400.0, processes=None, iqr=0.01, **fields):
    processes = processes or [median * 0.995, median * 1.005]  # two rounds: an interval
    return {
        "batch_size": 8,
        "status": "ok",
        "median_ms": median,
        "process_medians_ms": processes,
        "replicates": len(processes),
        "iqr_ms": iqr,
        "peak_rss_mb": peak,
        "peak_cuda_mb": None,
        "speedup": None,
        **fields,
    }


def _session(median, peak=400.0, name="eager", processes=None, started=1.0, model="Net", **row):
    return {
        "started_at": started,
        "config": {"source": {"path": "/m/model.py", "model": model}, "batch_sizes": [8]},
        "arms": [{"name": name, "results": [_result(median, peak, processes, **row)]}],
    }


def test_compare_names_the_direction_of_each_change():
    rows = compare_sessions(_session(2.0, 400), _session(1.0, 500))
    assert rows[0].time_change == -0.5 and rows[0].time_direction == "better"
    assert rows[0].memory_direction == "worse"
    same = compare_sessions(_session(2.0, 400), _session(2.002, 400))[0]
    assert same.time_direction == "unchanged" and same.memory_direction == "unchanged"
    assert "\u221250.0%" in render_comparison(rows)
    assert compare_sessions(_session(2.0, 400), _session(1.0, 400, name="other")) == []


def test_changed_is_decided_from_the_intervals_not_a_fixed_percentage():
    tight = _session(10.0, processes=[10.0, 10.05, 9.95])
    moved = _session(12.0, processes=[12.0, 12.05, 11.95], started=2.0)
    (row,) = diff_sessions(tight, moved).rows
    assert row.time_direction == "worse", "a 20% move with tight intervals"
    low, high = row.time_change_ci.low, row.time_change_ci.high
    assert 0 < low < 0.2 < high
    noisy = _session(10.0, processes=[8.0, 10.0, 12.0])
    noisy_after = _session(10.5, processes=[8.5, 10.5, 12.6], started=2.0)
    (row,) = diff_sessions(noisy, noisy_after).rows
    assert row.time_direction == "unchanged", "a noisy 5% move is within noise"


def _with_speedup(value, started, se=0.03, rounds=6):
    s = _session(10.0, processes=[10.0, 10.0], started=started)
    s["arms"].append(copy.deepcopy(s["arms"][0]))
    s["arms"][1]["name"] = "inductor"
    ci = [value * math.exp(-2.57 * se), value * math.exp(2.57 * se)] if rounds > 1 else None
    s["arms"][1]["results"][0].update(
        speedup=value, speedup_ci=ci, speedup_se_log=se, speedup_rounds=rounds,
        compile_cold_s=12.5,
    )  # fmt: skip
    return s


def test_a_speedup_change_is_judged_by_the_difference_of_paired_log_speedups():
    before = _with_speedup(1.5, 1.0)
    worse = diff_sessions(before, _with_speedup(1.2, 2.0))
    assert worse.rows[1].speedup_direction == "worse"
    ci = worse.rows[1].speedup_change_ci
    low, high = ci.low, ci.high
    assert low < 1.2 / 1.5 - 1 < high < 0
    assert worse.regressions == [
        f"inductor bs 8: speedup \u221220.0% [{units.change(low, 1)} {units.change(high, 1)}]"
    ]
    same = diff_sessions(before, _with_speedup(1.45, 2.0))
    assert same.rows[1].speedup_direction == "unchanged" and not same.regressions
    # the two 95% intervals overlap ([1.39-1.62] and [1.25-1.46]), yet the change is real:
    # the difference's own interval decides, not whether two intervals overlap
    overlapping = diff_sessions(before, _with_speedup(1.35, 2.0), margin=0.0).rows[1]
    assert overlapping.speedup_ci_after.high > overlapping.speedup_ci_before.low
    assert overlapping.speedup_direction == "worse"
    after = _with_speedup(1.5, 2.0)
    after["arms"][1]["results"][0]["compile_cold_s"] = 2.4
    text = render_comparison(diff_sessions(before, after).rows)
    assert "12.50 → 2.40" in text, "compile time is compared"


def test_a_change_counts_only_beyond_the_margin_two_sittings_drift_by():
    """Two sittings of the same code moved a step time +1.9% [+1.3% +2.6%] and a CI gate
    failed: a change counts where its whole interval lies beyond the margin (5% by default)."""
    tight = _session(10.0, processes=[10.0, 10.01, 9.99])
    drifted = _session(10.2, processes=[10.2, 10.21, 10.19], started=2.0)
    row = diff_sessions(tight, drifted).rows[0]
    assert row.time_change_ci.low > 0, "beyond noise, within the drift"
    assert row.time_direction == "unchanged"
    assert diff_sessions(tight, drifted, margin=0.0).rows[0].time_direction == "worse"
    slower = _session(10.8, processes=[10.8, 10.81, 10.79], started=2.0)
    assert diff_sessions(tight, slower).rows[0].time_direction == "worse", "beyond 5%"
    faster = _session(9.3, processes=[9.3, 9.31, 9.29], started=2.0)
    assert diff_sessions(tight, faster).rows[0].time_direction == "better"
    before = _with_speedup(1.5, 1.0, se=0.005)
    assert diff_sessions(before, _with_speedup(1.45, 2.0, se=0.005)).rows[1].speedup_direction == (
        "unchanged"
    )
    assert diff_sessions(before, _with_speedup(1.3, 2.0, se=0.005)).rows[1].speedup_direction == (
        "worse"
    )
    text = render(diff_sessions(tight, drifted, margin=0.02), "a", "b")
    assert "lies beyond \u00b12%" in text


def test_compare_refuses_a_margin_that_is_not_a_percentage(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_session(10.0, started=1.0, processes=[10.0, 10.01, 9.99])))
    b.write_text(json.dumps(_session(10.2, started=2.0, processes=[10.2, 10.21, 10.19])))
    assert main(["compare", str(a), str(b)]) == 0, "+2% is within the default 5% margin"
    assert "lies beyond \u00b15%" in capsys.readouterr().out
    assert main(["compare", str(a), str(b), "--margin", "0"]) == 1, "the intervals alone"
    capsys.readouterr()
    for bad in ("-1", "100", "five"):
        with pytest.raises(SystemExit) as exit_:
            main(["compare", str(a), str(b), "--margin", bad])
        assert exit_.value.code == 2
        assert "--margin" in capsys.readouterr().err
    with pytest.raises(ValueError, match="the margin is a fraction"):
        diff_sessions(_session(1.0), _session(1.0, started=2.0), margin=1.5)


def test_a_single_round_session_has_no_interval_in_compare():
    """It printed '-52.8% [-100.0% +5331150820100617.0%]' for two single-round sessions."""
    one = _with_speedup(1.5, 1.0, rounds=1)
    other = _with_speedup(0.7, 2.0, rounds=1)
    for session, median in ((one, 10.0), (other, 4.72)):
        for each in session["arms"]:
            each["results"][0].update(median_ms=median, process_medians_ms=[median], iqr_ms=50.0)
    comparison = diff_sessions(one, other)
    for row in comparison.rows:
        assert row.time_change_ci is None and row.time_direction == "n/a"
        assert row.speedup_change_ci is None and row.speedup_direction == "n/a"
    text = render_comparison(comparison.rows)
    assert "\u221252.8% (one round: no interval)" in text
    assert "no interval (one round)" in text and "%]" not in text
    assert "1.50x" not in text and "0.70x" not in text, "one round's speedup is no headline"
    assert not comparison.regressions


def test_compare_interval_covers_a_known_truth():
    """Sessions simulated with a known speedup change: the interval covers it about 95% of
    the time (bench/compare_coverage.py runs more; docs/benchmarks.md has the figure)."""
    from bench.compare_coverage import coverage

    covered, trials = coverage(trials=200, seed=1, rounds=6)
    assert 0.91 <= covered / trials <= 0.99


def test_the_newer_session_is_after_and_differences_are_warned_about():
    old = _session(2.0, started=100.0, processes=[2.0])
    new = _session(1.0, started=200.0, model="OtherNet", processes=[1.0, 1.01])
    comparison = diff_sessions(new, old)  # given in the wrong order
    assert comparison.swapped, "given in the wrong order"
    assert comparison.before.started_at == 100.0 and comparison.after.started_at == 200.0
    assert comparison.rows[0].time_direction == "n/a", "one round: no interval"
    assert comparison.rows[0].time_change_ci is None
    warnings = " ".join(comparison.warnings)
    assert "the models differ: Net in model.py before, OtherNet in model.py after" in warnings
    assert "the before session has a single replicate" in warnings
    replicated = _session(2.0, processes=[2.0, 2.1], started=100.0)
    assert (
        diff_sessions(replicated, _session(2.0, processes=[2.0, 2.1], started=200.0)).warnings == []
    )


def test_the_rounds_warning_reads_the_rounds_each_run_measured():
    """A run that stops when settled holds its most rounds in config.replicates: two such
    runs that measured the same rounds are like for like, whatever their most was."""
    three = [2.0, 2.01, 1.99]
    before = _session(2.0, processes=three, started=1.0)
    after = _session(2.0, processes=three, started=2.0)
    before["config"].update(replicates=20, stop_early=True)
    after["config"].update(replicates=10, stop_early=True)
    assert not any("replicates differ" in w for w in diff_sessions(before, after).warnings)
    fewer = _session(2.0, processes=[2.0, 2.01], started=2.0)
    fewer["config"].update(replicates=20, stop_early=True)
    warnings = diff_sessions(before, fewer).warnings
    assert "the replicates differ: 3 before, 2 after" in warnings


def test_compare_command_exit_codes(tmp_path, capsys):
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    a.write_text(json.dumps(_session(2.0, started=1.0)))
    b.write_text(json.dumps(_session(3.0, started=2.0)))
    c.write_text(json.dumps(_session(1.0, started=3.0)))
    assert main(["compare", str(b), str(a)]) == 1, "step time got worse beyond noise"
    out = capsys.readouterr()
    assert "worse beyond noise: eager bs 8: step time +50.0%" in out.out
    assert "before: a.json" in out.out and "after:  b.json" in out.out
    assert main(["compare", str(a), str(c)]) == 0, "faster is not a failure"
    assert "nothing got worse beyond noise" in capsys.readouterr().out
    assert main(["compare", str(a), str(tmp_path / "missing.json")]) == 2
    assert "cannot read session" in capsys.readouterr().err
    d = tmp_path / "d.json"
    d.write_text(json.dumps(_session(2.0, name="inductor", started=4.0)))
    assert main(["compare", str(a), str(d)]) == 2, "comparing nothing is not a pass"
    out = capsys.readouterr()
    assert "nothing got worse" not in out.out
    assert out.err.strip() == (
        "tcprof: error: nothing was compared: the sessions share no arm and batch size"
    )


def test_a_moved_baseline_says_the_machine_changed():
    slow = diff_sessions(_session(2.0, started=1.0), _session(3.0, started=2.0))
    assert any("the baseline eager itself moved beyond noise (bs 8 +50.0%)" in w
               for w in slow.warnings)  # fmt: skip
    other_model = diff_sessions(_session(2.0, started=1.0), _session(3.0, started=2.0, model="B"))
    assert not any("itself moved" in w for w in other_model.warnings), "a code change"
    steady = diff_sessions(_session(2.0, started=1.0), _session(2.0, started=2.0))
    assert not any("itself moved" in w for w in steady.warnings)


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
