"""The runner's schedule, driven by scripted fake workers (tests/support/fake_worker.py): which
command goes to which worker when, and what the run makes of errors, crashes, hangs and Stop.
No worker process starts here; each test takes milliseconds."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.process.handle import WorkerHandle
from tcprof.profiler.run.runner import Runner
from tcprof.profiler.session.fold import SessionFold
from tests.support.fake_worker import HUNG_STACK, ArmScript, FakeWorkers, Fault

EAGER, AOT, DYNAMO = ArmSpec("eager"), ArmSpec("aot_eager"), ArmSpec("dynamo_eager")
PROMPT_S = 1.5  # a stopped, timed-out or crashed run ends within this


def _config(**overrides: Any) -> RunConfig:
    fields: dict[str, Any] = {
        "source": ModelSource("model.py"),  # never read: the fake workers load nothing
        "arms": (EAGER, AOT),
        "batch_sizes": (8,),
        "warmup": 1,
        "steps": 4,
        "blocks": 2,
        "replicates": 1,
        "min_block_ms": 0,
        "threads": 1,
        "accuracy": False,
        "timeout_s": 10,  # a schedule that hangs fails here, not at pytest's timeout
    }
    fields.update(overrides)
    return RunConfig(**fields)


def _run(
    config: RunConfig, fakes: FakeWorkers, **runner_options: Any
) -> tuple[SessionFold, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    runner = Runner(config, listeners=[events.append], worker_factory=fakes, **runner_options)
    session = runner.run()
    assert all(isinstance(w, WorkerHandle) for w in fakes.workers)
    assert not any(w.alive() for w in fakes.workers), "every worker ends with the run"
    return session, events


def _measures(fakes: FakeWorkers, process: int, batch_size: int) -> list[tuple[int, int, int]]:
    """(arm, block, steps) of each measure command of one round at one batch size, in order."""
    return [
        (r.arm, r.command["block"], r.command["steps"])
        for r in fakes.commands("measure", process=process)
        if r.command["batch_size"] == batch_size
    ]


def _errors(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "error" and e.get("kind") == kind]


def _result(session: SessionFold, arm: int, batch_size: int) -> dict[str, Any]:
    data = session.to_dict()
    return next(r for r in data["arms"][arm]["results"] if r["batch_size"] == batch_size)


# -- the interleaved schedule ---------------------------------------------------------------------
def test_interleaved_blocks_take_turns_abba_within_and_across_rounds():
    fakes = FakeWorkers()
    session, _ = _run(_config(batch_sizes=(8, 16), steps=7, blocks=3, replicates=2), fakes)
    assert session.status == "completed" and session.errors == []
    # 7 steps in 3 blocks: 3, 2, 2. Each round starts with its order's first arm, the next
    # round with the other (the seeded Williams rows), and blocks alternate (ABBA).
    names = [a.name for a in session.arms]
    orders = [[names.index(n) for n in e["order"]] for e in session.rounds]
    assert sorted(orders) == [[0, 1], [1, 0]]
    for rep, (a, b) in enumerate(orders):
        for bs in (8, 16):
            assert _measures(fakes, rep, bs) == [
                (a, 0, 3), (b, 0, 3), (b, 1, 2), (a, 1, 2), (a, 2, 2), (b, 2, 2),
            ]  # fmt: skip


def test_every_arm_compiles_and_warms_up_before_any_arm_is_timed():
    fakes = FakeWorkers()
    _, events = _run(_config(batch_sizes=(8, 16), replicates=2), fakes)
    for rep in (0, 1):
        for bs in (8, 16):
            mine = [
                e
                for e in events
                if e.get("replicate") == rep and e.get("batch_size") == bs and "arm" in e
            ]
            first_timed = next(
                i for i, e in enumerate(mine) if e["type"] == "steps" and e["phase"] == "measure"
            )
            untimed = [
                (e["arm"], e["type"])
                for e in mine[:first_timed]
                if e["type"] == "first_step" or (e["type"] == "steps" and e["phase"] == "warmup")
            ]
            assert sorted(untimed) == [
                (0, "first_step"),
                (0, "steps"),
                (1, "first_step"),
                (1, "steps"),
            ]
            assert not any(e["type"] == "first_step" for e in mine[first_timed:])
    # and each batch size is finished by both arms before the next one is prepared
    cmds = [(r.cmd, r.command.get("batch_size")) for r in fakes.commands(process=0)]
    assert cmds.index(("prepare", 16)) > max(i for i, c in enumerate(cmds) if c == ("finish", 8))


def test_three_arms_alternate_block_direction_in_each_rounds_order():
    fakes = FakeWorkers()
    session, _ = _run(_config(arms=(EAGER, AOT, DYNAMO), blocks=4, replicates=2), fakes)
    names = [a.name for a in session.arms]
    for rep, started in enumerate(session.rounds):
        order = [names.index(n) for n in started["order"]]
        assert sorted(order) == [0, 1, 2]
        turns = [arm for arm, _, _ in _measures(fakes, rep, 8)]
        assert turns == order + order[::-1] + order + order[::-1]


def test_a_block_lasts_at_least_min_block_ms():
    fakes = FakeWorkers({0: ArmScript(step_ms=10.0), 1: ArmScript(step_ms=40.0)})
    session, _ = _run(_config(steps=2, blocks=1, min_block_ms=100), fakes)
    blocks = {
        arm.index: [b["steps"] for b in arm.results[8].blocks] for arm in session.arms
    }  # the fake runs the steps a real block would
    assert blocks == {0: [10], 1: [3]}
    assert _result(session, 1, 8)["speedup"] == pytest.approx(0.25)


# -- the sequential schedule ----------------------------------------------------------------------
def test_sequential_runs_each_arm_to_the_end_before_starting_the_next():
    fakes = FakeWorkers()
    session, _ = _run(_config(sequential=True, batch_sizes=(8, 16), replicates=2), fakes)
    assert session.status == "completed"
    per_size = ["prepare", "measure", "measure", "finish"]
    one_arm = ["load", *per_size, *per_size, "exit"]
    names = [a.name for a in session.arms]
    orders = [[names.index(n) for n in e["order"]] for e in session.rounds]
    assert sorted(orders) == [[0, 1], [1, 0]]
    for rep, (a, b) in enumerate(orders):  # one worker alive at a time, in the round's order
        cmds = [(r.arm, r.cmd) for r in fakes.commands(process=rep)]
        assert cmds == [(a, c) for c in one_arm] + [(b, c) for c in one_arm]
    sizes = [r.command["batch_size"] for r in fakes.commands("prepare", arm=0, process=0)]
    assert sizes == [8, 16]


# -- rounds and caches ----------------------------------------------------------------------------
def test_each_round_has_fresh_workers_and_the_planned_caches():
    fakes = FakeWorkers()
    session, _ = _run(_config(replicates=3, portable_round=True), fakes)
    assert [r["cache"] for r in session.rounds] == ["cold", "portable", "warm"]
    names = [a.name for a in session.arms]
    assert [(w.index, w.process) for w in fakes.workers] == [
        (names.index(name), rep) for rep, e in enumerate(session.rounds) for name in e["order"]
    ]  # each round's workers start in its order
    assert len({w.pid for w in fakes.workers}) == 6
    for worker in fakes.workers:  # each worker loads once, then only its own round's commands
        assert [
            r.cmd for r in fakes.commands("load", arm=worker.index, process=worker.process)
        ] == ["load"]
    eager_loads = [r.command for r in fakes.commands("load", arm=0)]
    assert all("cache_dir" not in c for c in eager_loads)
    loads = [r.command for r in fakes.commands("load", arm=1)]
    assert [c["cache_dir"].rsplit("/", 1)[1] for c in loads] == ["main", "portable", "main"]
    saves = fakes.commands("save_cache")
    assert [(r.arm, r.process) for r in saves] == [(1, 0)]
    assert loads[1]["cache_artifacts"] == saves[0].command["path"]
    assert "cache_artifacts" not in loads[0] and "cache_artifacts" not in loads[2]
    assert session.arms[1].caches == {0: "cold", 1: "portable", 2: "warm"}
    assert session.arms[0].caches == {}


@pytest.mark.parametrize(
    ("replicates", "warm_cache", "portable_round", "plan"),
    [
        (2, False, True, ["cold", "warm"]),
        (2, True, False, ["user", "user"]),
        (3, False, False, ["cold", "warm", "warm"]),  # the default: not asked for
    ],
)
def test_cache_plan_without_a_portable_round(replicates, warm_cache, portable_round, plan):
    fakes = FakeWorkers()
    config = _config(replicates=replicates, warm_cache=warm_cache, portable_round=portable_round)
    session, _ = _run(config, fakes)
    assert [r["cache"] for r in session.rounds] == plan
    assert fakes.commands("save_cache") == []
    dirs = [r.command["cache_dir"] for r in fakes.commands("load", arm=1)]
    if warm_cache:
        assert dirs == [None] * replicates  # the user's own caches
    else:
        assert len(set(dirs)) == 1 and dirs[0].endswith("main")


# -- errors ---------------------------------------------------------------------------------------
def test_a_fatal_error_ends_that_arm_and_the_others_go_on():
    fakes = FakeWorkers({1: ArmScript(faults=(Fault("prepare", "fatal", batch_size=8),))})
    cfg = _config(batch_sizes=(8, 16), replicates=2, accuracy=True)
    session, _ = _run(cfg, fakes)
    assert session.status == "completed_with_errors"
    assert [r.cmd for r in fakes.commands(arm=1)] == ["load", "prepare", "exit"]
    assert [sorted(r["order"]) for r in session.rounds] == [["aot_eager", "eager"], ["eager"]]
    assert session.arms[1].error["kind"] == "runtime"
    for rep in (0, 1):
        finished = [r.command["batch_size"] for r in fakes.commands("finish", arm=0, process=rep)]
        assert finished == [8, 16]
    assert _result(session, 0, 16)["status"] == "ok"
    assert _result(session, 1, 8)["status"] == "error"
    assert fakes.commands("accuracy") == [], "a dead arm gets no accuracy check"


def test_rounds_with_no_arm_left_are_neither_started_nor_announced():
    """Every arm failed in the first round (a forward that raises fails again): the later
    rounds would run nothing, so no banner says they did."""
    fault = Fault("prepare", "fatal", batch_size=8)
    fakes = FakeWorkers({0: ArmScript(faults=(fault,)), 1: ArmScript(faults=(fault,))})
    session, events = _run(_config(replicates=3, accuracy=True), fakes)
    assert session.status == "completed_with_errors"
    assert [e["replicate"] for e in events if e["type"] == "round_start"] == [0]
    assert [e["replicate"] for e in events if e["type"] == "arm_start"] == [0, 0]
    assert not [e for e in events if e["type"] == "steps"]
    assert {r.process for r in fakes.received} == {0}, "no worker of a later round"


def test_a_non_fatal_error_is_recorded_and_the_run_goes_on(tmp_path):
    fault = Fault("save_weights", "error", error_kind="weights")
    fakes = FakeWorkers({0: ArmScript(faults=(fault,))})
    session, events = _run(_config(save_weights="pt", artifacts_dir=str(tmp_path)), fakes)
    assert session.status == "completed"
    assert [e["arm"] for e in _errors(events, "weights")] == [0]
    assert [e["kind"] for e in session.errors] == ["weights"]
    assert session.arms[0].error is None, "not fatal: the arm's results stand"
    assert _result(session, 0, 8)["status"] == "ok"
    weights = [a for a in session.arms[1].artifacts if a["kind"] == "weights"]
    assert len(weights) == 1, "the other arm saved its weights"
    assert [r.cmd for r in fakes.commands(arm=0)][-2:] == ["save_weights", "exit"]


@pytest.mark.parametrize(
    "fault",
    [Fault("prepare", "oom", batch_size=64), Fault("measure", "oom", batch_size=64, block=1)],
    ids=["first step", "second block"],
)
def test_out_of_memory_drops_that_batch_size_and_a_smaller_one_is_measured(fault):
    fakes = FakeWorkers({1: ArmScript(faults=(fault,))})
    cfg = _config(batch_sizes=(64, 16), blocks=3, replicates=2, accuracy=True)
    session, events = _run(cfg, fakes)
    assert session.status == "completed", "out of memory is not fatal"
    assert [(e["arm"], e["batch_size"]) for e in _errors(events, "oom")] == [(1, 64)]
    assert _result(session, 1, 64)["status"] == "oom"
    assert _result(session, 1, 16)["status"] == "ok"
    assert _result(session, 0, 64)["status"] == "ok"
    # round 0: arm 1 stops at the failing command, then prepares 16 as usual
    blocks_at_64 = [b for a, b, _ in _measures(fakes, 0, 64) if a == 1]
    assert blocks_at_64 == ([] if fault.cmd == "prepare" else [0, 1])
    assert [b for a, b, _ in _measures(fakes, 0, 64) if a == 0] == [0, 1, 2]
    assert not any(
        r.command["batch_size"] == 64 for r in fakes.commands("finish", arm=1, process=0)
    )
    # round 1 does not try 64 again for arm 1, and the accuracy check skips it
    prepared = [r.command["batch_size"] for r in fakes.commands("prepare", arm=1, process=1)]
    assert prepared == [16]
    assert [r.command["batch_sizes"] for r in fakes.commands("accuracy")] == [[16]]


@pytest.mark.parametrize(
    ("fault", "crashed_at"),
    [(Fault("measure", "crash", block=1), 8), (Fault("load", "crash"), None)],
    ids=["mid block", "while the other arm loads"],
)
def test_a_crash_ends_the_arm_with_a_crash_error_and_the_run_goes_on(fault, crashed_at):
    fakes = FakeWorkers({0: ArmScript(faults=(fault,))})
    started = time.monotonic()
    session, events = _run(_config(blocks=3, replicates=2), fakes)
    assert time.monotonic() - started < PROMPT_S
    assert session.status == "completed_with_errors"
    (crash,) = _errors(events, "crash")
    assert crash["arm"] == 0 and crash["batch_size"] == crashed_at
    assert "SIGSEGV" in crash["message"]
    exit_ = next(e for e in events if e["type"] == "worker_exit" and e["arm"] == 0)
    assert exit_["status"] == "signal"
    assert any("Segmentation fault" in log["text"] for log in session.logs), "its last words"
    assert fakes.commands(arm=0)[-1].cmd == fault.cmd, "nothing is sent to a dead worker"
    assert fakes.commands(arm=0, process=1) == [], "nor is it started again"
    assert [b for a, b, _ in _measures(fakes, 0, 8) if a == 1] == [0, 1, 2]
    assert _result(session, 1, 8)["status"] == "ok"


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (
            Fault("prepare", "exit"),
            "worker exited with code 0 during the first step (compiling) at batch size 8 "
            "(the model ended its own process?)",
        ),
        (
            Fault("measure", "exit_held", block=2),
            "worker exited with code 0 during a measured block at batch size 8 "
            "(the model ended its own process?)",
        ),
        (
            Fault("measure", "close_channel", block=1),
            "worker closed its event channel during a measured block at batch size 8, then "
            "exited with code 1; its last output: OSError: [Errno 9] Bad file descriptor",
        ),
    ],
    ids=["exit 0 in the first step", "exit 0, channel held open", "channel closed mid block"],
)
def test_a_worker_that_ends_unasked_is_a_crash_of_its_arm(fault, words):
    fakes = FakeWorkers({1: ArmScript(faults=(fault,))})
    session, events = _run(_config(blocks=3), fakes)
    assert session.status == "completed_with_errors"
    (crash,) = _errors(events, "crash")
    assert crash["arm"] == 1 and crash["message"] == f"aot_eager: {words}"
    assert session.arms[1].error["kind"] == "crash"
    exit_ = next(e for e in events if e["type"] == "worker_exit" and e["arm"] == 1)
    assert exit_["status"] != "stopped", "a closed channel is not a stop by the user"
    assert _result(session, 0, 8)["status"] == "ok"


def test_an_exception_in_the_run_ends_every_worker_before_it_propagates():
    fakes = FakeWorkers()

    def failing_listener(event: dict[str, Any]) -> None:
        if event["type"] == "block_done":
            raise OSError("no space left on device")

    runner = Runner(_config(), listeners=[failing_listener], worker_factory=fakes)
    with pytest.raises(OSError, match="no space left"):
        runner.run()
    assert len(fakes.workers) == 2 and not any(w.alive() for w in fakes.workers)


# -- stalls, timeout and cancel -------------------------------------------------------------------
STALL_S = 0.3


class RisingCpu:
    """A CPU-time source for the stall watch: a hung fake worker's CPU time rises at one core
    for `busy_s` after it begins to hang (a long compile), then stays flat (a sleep)."""

    def __init__(self, fakes: FakeWorkers, busy_s: float) -> None:
        self.fakes, self.busy_s = fakes, busy_s

    def __call__(self, pid: int) -> float:
        worker = next(w for w in self.fakes.workers if w.pid == pid)
        if worker.hung_since is None:
            return 0.0
        return min(time.monotonic() - worker.hung_since, self.busy_s)


@pytest.mark.parametrize(
    ("fault", "busy_s", "where"),
    [
        (Fault("prepare", "hang"), 1.0, "the first step (compiling) at batch size 8"),
        (Fault("measure", "hang", block=1), 60.0, "a measured block at batch size 8"),
    ],
    ids=["busy CPU while compiling is progress", "busy CPU in a timed block is not"],
)
def test_a_worker_without_progress_is_stopped_with_a_stall_error(fault, busy_s, where):
    fakes = FakeWorkers({1: ArmScript(faults=(fault,))})
    stalled_at: list[float] = []
    cfg = _config(blocks=3, stall_timeout_s=STALL_S)
    runner = Runner(
        cfg,
        listeners=[lambda e: e.get("kind") == "stall" and stalled_at.append(time.monotonic())],
        worker_factory=fakes,
        cpu_time=RisingCpu(fakes, busy_s),
    )
    session = runner.run()
    hung = next(w for w in fakes.workers if w.hung_on is not None)
    stalled_after = stalled_at[0] - hung.hung_since
    expected = min(busy_s, 0.0 if fault.cmd == "measure" else busy_s) + STALL_S
    assert expected <= stalled_after < expected + PROMPT_S
    (stall,) = [e for e in session.errors if e["kind"] == "stall"]
    assert stall["message"] == f"aot_eager: stalled in {where} (no progress for {STALL_S:g} s)"
    assert HUNG_STACK in stall["traceback"], "where it hung, asked of the worker before it ends"
    assert hung.stopped_by_us and not hung.alive()
    assert session.status == "completed_with_errors"
    assert _result(session, 0, 8)["status"] == "ok"


def test_a_hung_worker_is_stopped_at_the_run_timeout():
    fakes = FakeWorkers({1: ArmScript(faults=(Fault("measure", "hang", block=1),))})
    started = time.monotonic()
    session, events = _run(_config(blocks=3, timeout_s=0.3, accuracy=True), fakes)
    assert time.monotonic() - started < 0.3 + PROMPT_S
    assert session.status == "timeout"
    (timeout,) = _errors(events, "timeout")
    assert "0.3 s timeout" in timeout["message"]
    hung = next(w for w in fakes.workers if w.hung_on is not None)
    assert hung.index == 1 and hung.stopped_by_us and not hung.alive()
    exits = {e["arm"]: e["status"] for e in events if e["type"] == "worker_exit"}
    assert exits == {0: "stopped", 1: "stopped"}
    assert fakes.commands("accuracy") == []
    assert events[-1]["type"] == "run_end" and events[-1]["status"] == "timeout"


def test_cancel_from_another_thread_ends_the_run_promptly():
    fakes = FakeWorkers({0: ArmScript(faults=(Fault("measure", "hang", block=0),))})
    runner = Runner(_config(timeout_s=None), worker_factory=fakes)
    outcome: list[SessionFold] = []
    thread = threading.Thread(target=lambda: outcome.append(runner.run()))
    thread.start()
    assert fakes.hanging.wait(5), "the block never started"
    cancelled = time.monotonic()
    runner.cancel()
    thread.join(PROMPT_S)
    assert not thread.is_alive()
    assert time.monotonic() - cancelled < PROMPT_S
    assert outcome[0].status == "stopped"
    assert all(w.stopped_by_us and not w.alive() for w in fakes.workers)
    assert [r.cmd for r in fakes.commands(arm=1)] == ["load", "prepare"], "arm 1 never ran"


# -- the accuracy pass ----------------------------------------------------------------------------
def test_accuracy_is_checked_once_per_compiled_arm_after_the_rounds():
    fakes = FakeWorkers()
    cfg = _config(arms=(EAGER, AOT, DYNAMO), batch_sizes=(8, 16), replicates=2, accuracy=True)
    session, events = _run(cfg, fakes)
    checks = fakes.commands("accuracy")
    assert sorted((r.arm, r.process) for r in checks) == [(1, 2), (2, 2)], "own, fresh process"
    assert all(r.command["batch_sizes"] == [8, 16] for r in checks)
    last_timed = max(r.seq for r in fakes.received if r.process < 2)
    assert all(r.seq > last_timed for r in fakes.received if r.process == 2)
    for r in checks:  # the untimed process only loads, checks and exits
        assert [c.cmd for c in fakes.commands(arm=r.arm, process=2)] == [
            "load",
            "accuracy",
            "exit",
        ]
    verdicts = [e for e in events if e["type"] == "accuracy"]
    assert {(e["arm"], e["replicate"], e["batch_size"]) for e in verdicts} == {
        (1, "accuracy", 8), (1, "accuracy", 16), (2, "accuracy", 8), (2, "accuracy", 16),
    }  # fmt: skip
    assert _result(session, 1, 16)["accuracy"]["status"] == "pass"
    assert _result(session, 0, 8)["accuracy"] is None
