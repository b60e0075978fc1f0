"""The stopping rule: where a run may stop, why, and the level of its intervals."""

from __future__ import annotations

import pytest

from tcprof.profiler.analysis import stopping
from tcprof.profiler.analysis.stats import SpeedupInterval

pytestmark = pytest.mark.timeout(60)


def _iv(low: float, high: float) -> SpeedupInterval:
    return SpeedupInterval((low * high) ** 0.5, low, high, "paired_t", 4)


@pytest.mark.parametrize(
    ("arms", "planned"), [(2, (4, 6)), (3, (6, 12)), (4, (4, 8)), (5, (10, 20)), (1, (3, 6))]
)
def test_looks_are_balanced_and_at_least_three_rounds(arms, planned):
    assert stopping.looks(arms) == planned
    plan = stopping.make_plan(arms)
    assert [n for n in range(1, 21) if plan.balanced(n)][:2] == [
        planned[0],
        planned[0] + plan.period,
    ]


def test_a_max_rounds_is_raised_to_a_balanced_point():
    assert stopping.looks(2, max_rounds=9) == (4, 10)
    assert stopping.looks(2, max_rounds=3) == (4,)
    assert stopping.make_plan(2, max_rounds=3).level == pytest.approx(1 - stopping.ALPHA)


def test_the_level_is_adjusted_for_two_looks():
    level = stopping.make_plan(2).level
    assert 0.96 < level < 0.975, "wider than 95%, narrower than a Bonferroni 97.25%"
    assert stopping.make_plan(2).level == level, "seeded: the same every time"


def test_settled_stops_at_the_first_look_only_where_balanced():
    plan = stopping.make_plan(2)
    clear = [_iv(0.41, 0.43)]
    assert not stopping.decide(plan, 2, clear).stop, "never before 3 rounds"
    assert not stopping.decide(plan, 3, clear).stop, "never off a balanced point"
    found = stopping.decide(plan, 4, clear)
    assert (found.stop, found.reason) == (True, stopping.SETTLED)


def test_precision_or_equivalence_stop_a_run_that_shows_no_difference():
    plan = stopping.make_plan(2)
    assert stopping.decide(plan, 4, [_iv(0.99, 1.01)]).reason == stopping.SETTLED, "inside ±2%"
    assert stopping.decide(plan, 4, [_iv(0.975, 1.03)]).reason == stopping.PRECISION
    assert not stopping.decide(plan, 4, [_iv(0.9, 1.1)]).stop, "wide: go on"
    assert not stopping.decide(plan, 4, [_iv(0.41, 0.43), _iv(0.9, 1.1)]).stop, "every one"
    assert not stopping.decide(plan, 4, [_iv(0.41, 0.43), None]).stop


def test_the_last_look_and_the_budget_stop_it():
    plan = stopping.make_plan(2, budget_s=60.0)
    wide = [_iv(0.8, 1.2)]
    assert stopping.decide(plan, 6, wide).reason == stopping.MAX_ROUNDS
    assert not stopping.decide(plan, 4, wide, elapsed_s=30.0).stop, "4 rounds at 7.5 s: 45 s"
    assert stopping.decide(plan, 4, wide, elapsed_s=45.0).reason == stopping.BUDGET
    longer = stopping.make_plan(2, max_rounds=10, budget_s=60.0)
    assert stopping.decide(longer, 6, wide, elapsed_s=50.0).reason == stopping.BUDGET
    assert not stopping.decide(plan, 5, wide, elapsed_s=500.0).stop, "only where balanced"


def test_half_width():
    assert stopping.half_width(_iv(1.0, 1.0609)) == pytest.approx(0.03, abs=1e-4)
