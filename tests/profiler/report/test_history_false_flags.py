"""The history's change rule over simulated series with a known answer (bench/history_false_flags.py):
a series where nothing changed is rarely flagged, a real 15% slowdown is caught where it happened."""

from __future__ import annotations

import numpy as np
import pytest

from bench.history_false_flags import measure
from tcprof.profiler.analysis.spread_rule import robust_spread, spread_critical


@pytest.mark.parametrize("sessions", [6, 12])
def test_no_change_series_are_rarely_flagged_and_a_real_step_is_caught(sessions):
    null, stepped = measure(300, sessions, tau=0.01, seed=sessions)
    assert null.per_pair() <= 0.05, null
    assert null.per_series() <= 0.09, null  # 5% by construction; 300 series draw ±1.3%
    assert stepped.catch_rate() >= 0.85, stepped


def test_the_spread_critical_value_holds_its_family_error():
    """Fresh no-change series (another seed than the calibration's) exceed c × the robust
    spread in about 5% of series; the normal quantile, which treats the spread as known,
    would flag about twice as many."""
    rng = np.random.default_rng(12345)
    diffs = np.diff(rng.standard_normal((20_000, 10)), axis=1)
    ratio = np.abs(diffs).max(axis=1) / robust_spread(diffs)
    assert np.mean(ratio > spread_critical(10, 0.05)) == pytest.approx(0.05, abs=0.008)
    assert np.mean(ratio > 2.77) > 0.09  # Bonferroni's z for 9 pairs: what the rule used to use
