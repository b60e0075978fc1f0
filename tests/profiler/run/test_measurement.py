"""How a run measures: threads, block length, the quiet room, the A/A control, accuracy in its
own process, and cold/portable/warm compile caches (issue: numbers a user can decide on)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tcprof.profiler.analysis import schedule
from tcprof.profiler.config import CONTROL_LABEL, CONTROL_SUFFIX, RunConfig
from tcprof.profiler.worker.quiet_room import wait_for_quiet
from tests.support.cli import FAST, FAST_CHECKED, MODELS, arm, events, run_cli


def _without(args: list[str], *flags: str) -> list[str]:
    """FAST without the given flags (and their values)."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in flags:
            skip = True
        else:
            out.append(a)
    return out


def test_a_model_that_changes_the_thread_count_is_a_usage_error(tmp_path):
    rc, stdout, stderr, s = run_cli(
        [str(MODELS / "sets_threads.py"), "--arms", "eager", "--batch-sizes", "4", *FAST],
        tmp_path,
    )
    assert rc == 2, stderr
    err = arm(s, "eager")["error"]
    assert err["kind"] == "usage" and "set_num_threads" in err["message"]


@pytest.fixture(scope="module")
def one_thread_no_accuracy(tmp_path_factory):
    """One real two-arm run read by two tests (each its own option: --threads 1, and
    --no-accuracy): (exit code, session, its folder)."""
    out = tmp_path_factory.mktemp("one-thread")
    rc, *_, s = run_cli(
        ["--example", "simple", "--arms", "eager,aot_eager", "--threads", "1", "--no-accuracy"]
        + FAST,
        out,
    )
    return rc, s, out


def test_every_worker_uses_the_recorded_thread_count(one_thread_no_accuracy):
    rc, s, out = one_thread_no_accuracy
    assert rc == 0 and s["config"]["threads"] == 1
    assert {e["threads"] for e in events(out) if e["type"] == "loaded"} == {1}


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_blocks_last_their_minimum_time(tmp_path):
    args = _without(FAST, "--min-block-ms", "--blocks", "--steps")
    rc, *_ = run_cli(
        ["--example", "simple", "--arms", "eager", "--steps", "2", "--blocks", "1"]
        + ["--min-block-ms", "150", *args],
        tmp_path,
    )
    assert rc == 0
    ev = events(tmp_path)
    (block,) = [e for e in ev if e["type"] == "block_done"]
    assert block["steps"] > 2, "a tiny step runs more steps to fill the minimum block"
    measured = [
        ms for e in ev if e["type"] == "steps" and e["phase"] == "measure" for ms in e["ms"]
    ]
    assert len(measured) == block["steps"] and sum(measured) > 50
    assert block["quiet"] is True


@pytest.mark.serial  # timing-sensitive: its deadline of seconds
def test_the_quiet_room_waits_for_a_busy_peer_and_flags_it():
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    idle = subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"])
    try:
        # A low share: on a machine loaded by others the spinning peer gets a fraction of a
        # core, and what is checked is the waiting, not the default threshold.
        quiet, waited = wait_for_quiet([busy.pid], max_wait_s=0.3, busy_share=0.05)
        assert not quiet and waited >= 0.3
        quiet, waited = wait_for_quiet([idle.pid])
        assert quiet and waited < 1.0
        assert wait_for_quiet([]) == (True, 0.0)
    finally:
        for p in (busy, idle):
            p.kill()
            p.wait()


def test_both_controls_show_the_noise_floor_and_are_not_stored_as_arms(tmp_path):
    args = _without(FAST, "--replicates")
    rc, stdout, _, s = run_cli(
        ["--example", "simple", "--arms", "eager,aot_eager", "--control", "both"]
        + ["--replicates", "2", "--no-accuracy", *args],
        tmp_path,
    )
    assert rc == 0
    twin = "aot_eager" + CONTROL_SUFFIX
    assert [a["name"] for a in s["arms"]] == ["eager", "aot_eager", CONTROL_LABEL, twin]
    assert s["config"]["control"] == "both" and len(s["config"]["arms"]) == 2
    assert [a.name for a in RunConfig.from_dict(s["config"]).run_arms][2:] == [CONTROL_LABEL, twin]
    for name, of in ((CONTROL_LABEL, "eager"), (twin, "aot_eager")):
        row = arm(s, name)["results"][0]
        assert row["replicates"] == 2 and row["speedup_method"] == "paired_t"
        assert row["aa_of"] == of and len(row["aa_ci"]) == 2 and row["aa_flagged"] in (True, False)
        assert row["aa_ci"][0] <= row["aa_speedup"] <= row["aa_ci"][1]
    assert s["comparisons"]["count"] == 1, "controls are checks, not comparisons"
    names = ["eager", "aot_eager", CONTROL_LABEL, twin]  # the run's arms, in index order
    assert [r["order"] for r in s["rounds"] if isinstance(r["replicate"], int)] == [
        [names[i] for i in schedule.round_order(4, r, s["config"]["seed"])] for r in (0, 1)
    ], "the seeded Williams rows for 4 arms"
    assert s["schedule"]["period"] == 4 and s["schedule"]["balanced"] is False
    assert "not balanced" in stdout and "A/A controls" in stdout and "1 comparison" in stdout


def test_a_compiled_control_needs_a_compiled_arm(tmp_path):
    rc, _, stderr, _ = run_cli(
        ["--example", "simple", "--arms", "eager", "--control", "compiled", *FAST], tmp_path
    )
    assert rc == 2 and "needs a compiled arm" in stderr and "Traceback" not in stderr


def test_control_label_is_reserved(tmp_path):
    rc, _, stderr, _ = run_cli(
        ["--example", "simple", "--arms", f"eager; aot_eager:label={CONTROL_LABEL}", *FAST],
        tmp_path,
    )
    assert rc == 2 and "reserved" in stderr


def test_accuracy_runs_untimed_in_its_own_process(tmp_path):
    """A dropout model passes against aot_eager; the fault-injection backend (it rewrites
    torch.relu calls) fails, naming the worst tensor; neither adds to the timed insight."""
    dropout = tmp_path / "dropout"
    rc, *_, s = run_cli(
        [str(MODELS / "dropout_model.py"), "--arms", "eager,aot_eager", "--batch-sizes", "8,16"]
        + FAST_CHECKED,
        dropout,
    )
    assert rc == 0
    rows = arm(s, "aot_eager")["results"]
    assert [r["accuracy"]["status"] for r in rows] == ["pass", "pass"]
    assert rows[0]["accuracy"]["float64"] is True and rows[0]["accuracy"]["compared"] > 4
    assert [r["compile_status"] for r in rows] == ["compiled", "recompiled"]
    assert [r["recompiles"] for r in rows] == [0, 1], "the accuracy process's compiles stay out"
    hellos = [e for e in events(dropout) if e["type"] == "hello"]
    timed = {e["pid"] for e in hellos if e["replicate"] == 0}
    untimed = {e["pid"] for e in hellos if e["replicate"] == "accuracy"}
    assert len(timed) == 2 and len(untimed) == 1 and not timed & untimed
    accuracy_events = [e for e in events(dropout) if e.get("replicate") == "accuracy"]
    assert {e["type"] for e in accuracy_events} >= {"accuracy", "worker_exit"}

    wrong = tmp_path / "wrong"
    rc, *_, s = run_cli(
        [str(MODELS / "relu_model.py"), "--arms", "eager,relu_accuracy_error_TESTING_ONLY"]
        + ["--batch-sizes", "8", *FAST_CHECKED],
        wrong,
    )
    acc = arm(s, "relu_accuracy_error_TESTING_ONLY")["results"][0]["accuracy"]
    assert acc["status"] == "fail" and acc["worst"]["name"] == "fc2.weight"
    assert "fc2.weight" in acc["reason"]


def test_no_accuracy_skips_the_check(one_thread_no_accuracy):
    rc, s, out = one_thread_no_accuracy
    assert rc == 0 and arm(s, "aot_eager")["results"][0]["accuracy"] is None
    assert not any(e.get("replicate") == "accuracy" for e in events(out))


@pytest.mark.inductor
@pytest.mark.timeout(600)  # three inductor compiles, cold ones included
def test_cold_portable_and_warm_compiles_use_their_own_caches(tmp_path, private_home):
    """In mode=reduce-overhead, whose CUDA graphs a CPU skips (torch 2.13 only counts them) and
    the arm must say so: one real inductor arm for both checks (a cold compile is ~15 s here).
    Inductor's once-per-machine CPU check runs before each compile, built once in the home
    folder's check folder; the cold and portable folders start with its files and nothing else,
    and still compile cold (misses only)."""
    args = _without(FAST, "--replicates", "--blocks", "--steps", "--warmup")
    rc, stdout, _, s = run_cli(
        ["--example", "simple", "--arms", "eager,inductor:mode=reduce-overhead"]
        + ["--batch-sizes", "16", "--warmup", "3", "--replicates", "3", "--steps", "2"]
        + ["--blocks", "1", "--no-accuracy", "--portable-round", *args],
        tmp_path,
    )
    assert rc == 0, stdout
    ind = arm(s, "inductor(reduce-overhead)")
    skips = ind["cudagraph_skips"]
    assert skips and "cpu device" in skips[0]["reason"] and skips[0]["batch_size"] == 16
    advice = [a for a in ind["advice"] if a["kind"] == "cudagraphs_skipped"]
    assert (
        len(advice) == 1 and "ran without CUDA graphs at batch size(s) 16" in advice[0]["message"]
    )
    assert "without CUDA graphs" in stdout
    assert ind["caches"] == {"0": "cold", "1": "portable", "2": "warm"}
    loaded = [e for e in events(tmp_path) if e["type"] == "loaded" and e["arm"] == ind["index"]]
    dirs = {e["replicate"]: e["cache_dir"] for e in loaded}
    assert "tcprof-cache-" in dirs[0] and dirs[0] == dirs[2] != dirs[1]
    saved = [e for e in ind["cache_events"] if e["event"] == "saved"]
    assert saved and saved[0]["saved"] and (tmp_path / "artifacts").exists()
    row = ind["results"][0]
    assert row["graphs"] >= 1 and row["dynamo_compile_s"] > 0
    cache = row["compile_cache"]
    assert cache["cold"]["fx_misses"] > 0 and cache["cold"]["fx_hits"] == 0
    assert cache["warm"]["fx_hits"] > 0 and cache["warm"]["fx_misses"] == 0
    assert cache["portable"]["fx_hits"] > 0
    for key in ("compile_cold_s", "compile_warm_s", "compile_portable_s"):
        assert row[key] is not None and row[key] >= 0, key
    assert row["compile_s"] == row["compile_cold_s"]
    assert cache["cold"]["aot_hits"] == 0
    checks = {e["replicate"]: e["cpu_check"] for e in loaded}
    assert [checks[r]["built"] for r in (0, 1, 2)] == [True, False, False]
    machine = [p.parent for p in (private_home / "inductor-cpu-check").rglob("check.json")]
    assert len(machine) == 1
    files = [p for p in machine[0].glob("*/*") if p.suffix in (".cpp", ".so")]
    assert checks[0]["seeded"] == checks[1]["seeded"] == len(files) and checks[2]["seeded"] == 0
    assert checks[0]["other_files"] == checks[1]["other_files"] == 0  # nothing of the model
    assert checks[2]["other_files"] > 0  # the warm folder: the cold round's graphs and kernels
    assert ind["model"]["cpu_check"] == checks[0]
