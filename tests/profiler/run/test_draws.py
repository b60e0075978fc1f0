"""What each round draws (run/draws.py): its seed, the waits before its blocks, and a script
that seeds itself; then a run with the scripted fake worker, where each draw must land."""

from __future__ import annotations

from typing import Any

import pytest

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.protocol.session_schema import session_problem
from tcprof.profiler.run import draws
from tcprof.profiler.run.runner import Runner
from tests.support.fake_worker import FakeWorkers

pytestmark = pytest.mark.timeout(30)


def test_round_zero_keeps_the_runs_seed_and_later_rounds_differ_reproducibly():
    seeds = [draws.round_seed(7, r) for r in range(8)]
    assert seeds[0] == 7
    assert len(set(seeds)) == 8
    assert seeds == [draws.round_seed(7, r) for r in range(8)]  # --seed 7 reproduces them
    assert draws.round_seed(8, 3) != seeds[3]
    assert all(0 <= s < 2**31 for s in seeds)


def test_block_waits_are_small_reproducible_and_each_rounds_own():
    first = draws.BlockWaits(0, 2)
    waits = [first.next() for _ in range(200)]
    assert all(0 <= w < draws.WAIT_MAX_S for w in waits)
    assert first.total_s == pytest.approx(sum(waits))
    assert max(waits) - min(waits) > 0.8 * draws.WAIT_MAX_S  # spread over the range
    again = draws.BlockWaits(0, 2)
    assert [again.next() for _ in range(200)] == waits
    other_round = draws.BlockWaits(0, 3)
    assert [other_round.next() for _ in range(5)] != waits[:5]


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("torch.manual_seed(1337)", "torch.manual_seed at train.py:2"),
        ("    L.seed_everything(42, workers=True)", "L.seed_everything at train.py:2"),
        ("set_seed(args.seed)", "set_seed at train.py:2"),
        ("# torch.manual_seed(0) was here", None),
        ("seed = 3", None),
    ],
)
def test_a_script_that_seeds_itself_is_found_in_its_source(tmp_path, line, found):
    script = tmp_path / "train.py"
    script.write_text(f"import torch\n{line}\n", encoding="utf-8")
    assert draws.own_seed_call(str(script)) == found


def test_a_script_that_cannot_be_read_is_not_said_to_seed_itself(tmp_path):
    assert draws.own_seed_call(str(tmp_path / "gone.py")) is None


def _config(**overrides: Any) -> RunConfig:
    fields: dict[str, Any] = {
        "source": ModelSource("model.py"),  # never read: the fake workers load nothing
        "arms": (ArmSpec("eager"), ArmSpec("aot_eager")),
        "batch_sizes": (8,),
        "warmup": 1,
        "steps": 4,
        "blocks": 2,
        "replicates": 3,
        "min_block_ms": 0,
        "threads": 1,
        "accuracy": True,
        "seed": 11,
        "timeout_s": 10,
    }
    fields.update(overrides)
    return RunConfig(**fields)


def test_rounds_get_their_own_seed_paired_across_arms_and_the_accuracy_pass_the_runs():
    fakes = FakeWorkers()
    session = Runner(_config(), worker_factory=fakes).run()
    assert session.status == "completed"
    expected = [draws.round_seed(11, r) for r in range(3)]
    for round_no, seed in enumerate(expected):
        loads = [r for r in fakes.commands("load", process=round_no)]
        assert {r.arm for r in loads} == {0, 1}
        assert {r.command["config"]["seed"] for r in loads} == {seed}  # paired within a round
    accuracy = fakes.commands("load", arm=1, process=3)  # the compiled arm's untimed process
    assert [r.command["config"]["seed"] for r in accuracy] == [11]
    assert not fakes.commands("load", arm=0, process=3)  # eager has no accuracy pass
    assert [r["seed"] for r in session.rounds] == expected
    assert session.config["seed"] == 11  # the run's own seed stays the session's


def test_each_block_waits_a_drawn_time_and_the_round_records_its_total():
    fakes = FakeWorkers()
    session = Runner(_config(), worker_factory=fakes).run()
    for round_no in range(3):
        measures = fakes.commands("measure", process=round_no)
        assert len(measures) == 2 * 2  # arms x blocks
        waits = [r.command["wait_s"] for r in sorted(measures, key=lambda r: r.seq)]
        replay = draws.BlockWaits(11, round_no)
        assert waits == [replay.next() for _ in waits]  # drawn in the order the blocks run
        assert session.rounds[round_no]["block_wait_s"] == pytest.approx(sum(waits), abs=1e-3)
    document = session.to_dict()
    assert document["seeding"] == {
        "per_round": True,
        "accuracy_seed": 11,
        "wait_max_s": draws.WAIT_MAX_S,
        "script_own_seed": None,
        "order_randomised": True,
    }
    assert session_problem(document) is None


def test_a_script_run_says_whether_the_script_seeds_itself(tmp_path):
    from tcprof.profiler.config import ScriptSource

    script = tmp_path / "train.py"
    script.write_text("import torch\n\ntorch.manual_seed(1337)\n", encoding="utf-8")
    config = _config(script=ScriptSource(str(script)))
    assert draws.seeding(config)["script_own_seed"] == "torch.manual_seed at train.py:3"
    assert draws.seeding(_config())["script_own_seed"] is None  # a model file: ours alone
