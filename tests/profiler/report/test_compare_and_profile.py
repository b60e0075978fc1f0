from __future__ import annotations

import copy
import json

from tcprof.profiler.cli.main import main
from tcprof.profiler.report.compare import compare, compare_sessions, render_comparison
from tests.support.cli import arm, run_cli


def _result(median, peak=400.0, processes=None, iqr=0.01, **fields):
    return {
        "batch_size": 8,
        "status": "ok",
        "median_ms": median,
        "process_medians_ms": processes or [median],
        "replicates": len(processes or [median]),
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
    assert rows[0]["time_change"] == -0.5 and rows[0]["time_direction"] == "better"
    assert rows[0]["memory_direction"] == "worse"
    same = compare_sessions(_session(2.0, 400), _session(2.002, 400))[0]
    assert same["time_direction"] == "unchanged" and same["memory_direction"] == "unchanged"
    assert "-50.0%" in render_comparison(rows)
    assert compare_sessions(_session(2.0, 400), _session(1.0, 400, name="other")) == []


def test_changed_is_decided_from_the_intervals_not_a_fixed_percentage():
    tight = _session(10.0, processes=[10.0, 10.05, 9.95])
    moved = _session(12.0, processes=[12.0, 12.05, 11.95], started=2.0)
    (row,) = compare(tight, moved).rows
    assert row["time_direction"] == "worse", "a 20% move with tight intervals"
    low, high = row["time_change_ci"]
    assert 0 < low < 0.2 < high
    noisy = _session(10.0, processes=[8.0, 10.0, 12.0])
    noisy_after = _session(10.5, processes=[8.5, 10.5, 12.6], started=2.0)
    (row,) = compare(noisy, noisy_after).rows
    assert row["time_direction"] == "unchanged", "a noisy 5% move is within noise"


def test_speedups_changed_when_their_intervals_do_not_overlap():
    def with_speedup(value, ci, started):
        s = _session(10.0, processes=[10.0, 10.0], started=started)
        s["arms"].append(copy.deepcopy(s["arms"][0]))
        s["arms"][1]["name"] = "inductor"
        s["arms"][1]["results"][0].update(speedup=value, speedup_ci=ci, compile_cold_s=12.5)
        return s

    before = with_speedup(1.5, [1.4, 1.6], 1.0)
    worse = compare(before, with_speedup(1.2, [1.1, 1.3], 2.0))
    assert worse.rows[1]["speedup_direction"] == "worse"
    assert worse.regressions == ["inductor bs 8: speedup 1.50x → 1.20x"]
    overlap = compare(before, with_speedup(1.45, [1.3, 1.55], 2.0))
    assert overlap.rows[1]["speedup_direction"] == "unchanged" and not overlap.regressions
    after = with_speedup(1.5, [1.4, 1.6], 2.0)
    after["arms"][1]["results"][0]["compile_cold_s"] = 2.4
    text = render_comparison(compare(before, after).rows)
    assert "12.50 → 2.40" in text, "compile time is compared"


def test_the_newer_session_is_after_and_differences_are_warned_about():
    old = _session(2.0, started=100.0)
    new = _session(1.0, started=200.0, model="OtherNet")
    comparison = compare(new, old)  # given in the wrong order
    assert comparison.before is old and comparison.after is new
    assert comparison.rows[0]["time_direction"] == "better"
    warnings = " ".join(comparison.warnings)
    assert "the models differ: Net in model.py before, OtherNet in model.py after" in warnings
    assert "single replicate" in warnings
    replicated = _session(2.0, processes=[2.0, 2.1], started=100.0)
    assert compare(replicated, _session(2.0, processes=[2.0, 2.1], started=200.0)).warnings == []


def test_compare_command_exit_codes(tmp_path, capsys):
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    a.write_text(json.dumps(_session(2.0, started=1.0)))
    b.write_text(json.dumps(_session(3.0, started=2.0)))
    c.write_text(json.dumps(_session(1.0, started=3.0)))
    assert main(["compare", str(b), str(a)]) == 1, "step time got worse beyond noise"
    out = capsys.readouterr()
    assert "worse beyond noise: eager bs 8: step time +50.0%" in out.out
    assert "before: a.json" in out.out and "after:  b.json" in out.out
    assert "warning: both sessions have a single replicate" in out.out
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
    slow = compare(_session(2.0, started=1.0), _session(3.0, started=2.0))
    assert any("the baseline eager itself moved beyond noise (bs 8 +50.0%)" in w
               for w in slow.warnings)  # fmt: skip
    other_model = compare(_session(2.0, started=1.0), _session(3.0, started=2.0, model="B"))
    assert not any("itself moved" in w for w in other_model.warnings), "a code change"
    steady = compare(_session(2.0, started=1.0), _session(2.0, started=2.0))
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
