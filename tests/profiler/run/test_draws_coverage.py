"""The rounds' draws keep the interval's promise where today's fixed seed and schedule did not,
by simulation with a known truth (bench/round_draws_coverage.py; figures in docs/benchmarks.md)."""

from __future__ import annotations

import pytest

from bench.round_draws_coverage import coverage

pytestmark = pytest.mark.timeout(60)
TRIALS = 1500


def test_a_push_locked_onto_one_arm_becomes_noise_under_the_random_waits():
    assert coverage(8, TRIALS, 8, "locked") < 0.85  # today: the same push in every round
    assert 0.93 <= coverage(8, TRIALS, 8, "waits", period_s=0.05) <= 0.975
    assert 0.93 <= coverage(5, TRIALS, 5, "waits", period_s=0.1) <= 0.975


def test_a_speedup_that_depends_on_the_seed_is_covered_with_a_seed_per_round():
    assert coverage(8, TRIALS, 8, tau=0.03, per_round_seed=False) < 0.8  # today: one seed
    assert 0.93 <= coverage(8, TRIALS, 8, tau=0.03, per_round_seed=True) <= 0.975
