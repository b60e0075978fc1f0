"""The arms' order over rounds: a Williams design, balanced at the default settings."""

from __future__ import annotations

import pytest

from tcprof.profiler.analysis import schedule
from tcprof.profiler.config import DEFAULT_REPLICATES, ModelSource, RunConfig

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
