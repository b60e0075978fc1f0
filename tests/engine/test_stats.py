from __future__ import annotations

import numpy as np
import pytest

from profiler import stats


def test_summary_is_exact_on_known_data():
    s = stats.summarize([1.0, 2.0, 3.0, 4.0, 5.0])
    assert (s.n, s.median, s.mean, s.minimum) == (5, 3.0, 3.0, 1.0)
    assert s.p10 == pytest.approx(1.4) and s.p90 == pytest.approx(4.6)
    assert s.iqr == pytest.approx(2.0)
    assert stats.summarize([]) is None


def test_speedup_ci_is_reproducible_and_brackets_the_point():
    rng = np.random.default_rng(1)
    base = list(2.0 + rng.normal(0, 0.05, 200))
    arm = list(1.0 + rng.normal(0, 0.05, 200))
    a = stats.speedup_ci(base, arm, rng=np.random.default_rng(7))
    b = stats.speedup_ci(base, arm, rng=np.random.default_rng(7))
    assert a == b
    point, low, high = a
    assert low <= point <= high
    assert point == pytest.approx(2.0, rel=0.05)
    assert high - low < 0.2
    assert stats.speedup_ci([], [1.0]) is None


def test_identical_samples_give_speedup_one_with_zero_width():
    assert stats.speedup_ci([2.0] * 10, [2.0] * 10) == (1.0, 1.0, 1.0)


def test_break_even():
    assert stats.break_even_steps(10.0, 3.0, 1.0) == pytest.approx(5000.0)
    assert stats.break_even_steps(10.0, 1.0, 1.5) is None, "a slower arm never breaks even"
    assert stats.break_even_steps(None, 3.0, 1.0) is None


def test_tolerance():
    assert stats.within_tolerance(1.0005, 1.0, 1e-3, 0)
    assert not stats.within_tolerance(1.01, 1.0, 1e-3, 1e-5)
    assert stats.within_tolerance(None, 1.0, 1e-3, 1e-5) is None


def test_long_runs_keep_the_bootstrap_bounded():
    rng = np.random.default_rng(3)
    base = 2.0 + rng.random(1_000_000) * 0.01
    arm = 1.0 + rng.random(1_000_000) * 0.01
    point, low, high = stats.speedup_ci(base, arm, rng=np.random.default_rng(0), resamples=200)
    assert low <= point <= high and point == pytest.approx(2.0, rel=0.01)
