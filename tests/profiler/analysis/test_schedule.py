"""The arms' order over rounds: a Williams design, balanced at the default settings."""

from __future__ import annotations

import pytest

from tcprof.profiler.analysis import schedule
from tcprof.profiler.config import DEFAULT_REPLICATES, ModelSource, RunConfig, balanced_rounds

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize("n_arms", [2, 3, 4, 5, 6])
def test_one_period_balances_positions_and_neighbours(n_arms):
    b = schedule.balance(n_arms, schedule.period(n_arms))
    assert b.balanced and b.note() is None
    each = schedule.period(n_arms) // n_arms
    assert all(row == [each] * n_arms for row in b.positions)
    orders = [schedule.round_order(n_arms, r) for r in range(schedule.period(n_arms))]
    assert all(sorted(o) == list(range(n_arms)) for o in orders)


def test_the_default_run_is_balanced_with_and_without_the_eager_control():
    """The defaults, not a chosen seed: eager and inductor, then + eager-control."""
    plain = RunConfig(ModelSource("m.py"))
    controlled = RunConfig(ModelSource("m.py"), control="eager")
    for cfg in (plain, controlled):
        b = schedule.balance(len(cfg.run_arms), cfg.replicates)
        assert cfg.replicates == DEFAULT_REPLICATES and b.balanced, b
    three = schedule.balance(3, DEFAULT_REPLICATES)
    assert [row[0] for row in three.positions] == [2, 2, 2], "each arm first in 2 of 6 rounds"
    assert {three.after[a][b] for a in range(3) for b in range(3) if a != b} == {2}


@pytest.mark.parametrize("n_arms", [2, 3, 4, 5, 6])
def test_the_default_rounds_balance_every_arm_count(n_arms):
    """Each arm in each position, and each ordered pair adjacent, equally often."""
    rounds = balanced_rounds(n_arms)
    assert rounds >= DEFAULT_REPLICATES and rounds % len(schedule.williams(n_arms)) == 0
    b = schedule.balance(n_arms, rounds)
    assert {c for row in b.positions for c in row} == {rounds // n_arms}
    pairs = {b.after[x][y] for x in range(n_arms) for y in range(n_arms) if x != y}
    assert pairs == {rounds // n_arms} and b.note() is None


def _config(*words):
    from tcprof.profiler.cli.main import build_parser
    from tcprof.profiler.recording.options import config_from_options

    return config_from_options(vars(build_parser().parse_args(["run", "--example", "mlp", *words])))


def test_the_run_s_default_rounds_follow_its_arms_and_a_given_count_is_kept():
    """With no --replicates a run stops when settled (analysis/stopping.py): `replicates` is
    then its last look, balanced for its arms; a count given is kept, and fixed."""
    both = _config("--control", "both")  # eager, inductor and their two twins
    assert len(both.run_arms) == 4 and both.replicates == 8 and both.stop_early
    assert schedule.balance(4, both.replicates).balanced
    assert _config().replicates == 6 and _config("--control").replicates == 12
    three = _config("--arms", "eager,inductor,aot_eager", "--control", "both")
    assert len(three.run_arms) == 5 and three.replicates == 20
    assert _config("--max-rounds", "9").replicates == 10, "raised to a balanced count"
    given = _config("--control", "both", "--replicates", "6")
    assert given.replicates == 6 and not given.stop_early, "a note, not a refusal"
    note = schedule.balance(4, 6).note(["eager", "inductor", "eager-control", "inductor-control"])
    assert "--replicates 8 would balance" in note and "eager runs first in 2" in note


def test_fewer_rounds_than_the_design_needs_say_so():
    b = schedule.balance(3, 2)
    assert not b.balanced
    note = b.note(["eager", "inductor", "eager-control"])
    assert "not balanced" in note and "multiple of 6" in note and "2 round(s)" in note


def test_blocks_alternate_within_a_round():
    assert [schedule.block_order([0, 1, 2], b) for b in range(3)] == [
        [0, 1, 2],
        [2, 1, 0],
        [0, 1, 2],
    ]


def test_the_summary_reads_the_orders_that_ran():
    rounds = [
        {"replicate": 0, "order": ["eager", "inductor"]},
        {"replicate": 1, "order": ["inductor", "eager"]},
        {"replicate": "accuracy", "order": ["eager"]},  # the untimed pass is not a round
    ]
    out = schedule.schedule_summary(rounds, ["eager", "inductor"])
    assert out == {
        "design": "williams",
        "period": 2,
        "rounds": 2,
        "balanced": True,
        "note": None,
        "positions": {"eager": [1, 1], "inductor": [1, 1]},
    }
    lopsided = schedule.schedule_summary(rounds[:1], ["eager", "inductor"])
    assert not lopsided["balanced"] and "eager runs first in 1" in lopsided["note"]


def test_a_saved_schedule_reads_back_typed_what_the_summary_wrote():
    rounds = [{"replicate": r, "order": ["eager", "inductor", "aot_eager"]} for r in range(2)]
    names = ["eager", "inductor", "aot_eager"]
    saved = schedule.SavedSchedule.of(schedule.schedule_summary(rounds, names))
    assert (saved.design, saved.balanced, saved.rounds, saved.arms) == ("williams", False, 2, 3)
    assert saved.note and "runs first in 2" in saved.note
    old = schedule.SavedSchedule.of(None)  # a session from before the schedule was saved
    assert (old.design, old.balanced, old.rounds, old.arms, old.note) == (
        None,
        False,
        None,
        0,
        None,
    )


@pytest.mark.parametrize("n_arms", [2, 3, 4, 5])
def test_a_seeded_design_is_randomised_and_balanced_at_the_end_of_every_cycle(n_arms):
    """The arms take the square's letters at random and each cycle's rows run in a random
    order: still balanced after every whole cycle, and no arm leads the cold round in every
    run (a fixed square put the same arm first in round 0 of all 30 runs of a series)."""
    period = schedule.period(n_arms)
    firsts = set()
    for seed in range(40):
        orders = [schedule.round_order(n_arms, r, seed) for r in range(3 * period)]
        assert orders == [schedule.round_order(n_arms, r, seed) for r in range(3 * period)]
        for cycles in (1, 2, 3):
            b = schedule.balance_of(orders[: cycles * period], n_arms)
            assert b.balanced, (seed, cycles, orders)
        firsts.add(orders[0][0])
    assert firsts == set(range(n_arms))
    assert schedule.round_order(n_arms, 0) == schedule.williams(n_arms)[0], "unseeded: as drawn"
