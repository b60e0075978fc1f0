"""How far a change between consecutive sessions of a series must go, in the series' own robust
spread, before `tcprof history` calls it more than noise (profiler/report/history.py).

The spread is estimated from the series itself (median |Δ| of its consecutive sessions / 0.6745),
so the ratio a change is judged by, |Δ| / spread, is a studentized maximum over the series'
n − 1 pairs: the normal quantile (Bonferroni over the pairs) treats the estimate as exact and,
with a handful of sessions, flags a series with no change in about 10% of series, not 5%
(bench/history_false_flags.py). The critical value here is that ratio's own 1 − family_error
quantile under no change, found once per n by a seeded simulation of n independent normal
sessions, so it is exact for the estimator the rule uses and the same on every machine.
"""

from __future__ import annotations

import functools

import numpy as np

NORMAL_MAD = 0.6745  # median |z| of a standard normal
DRAWS = 10_000  # simulated no-change series per n: the tail share it sets is within ±0.5%
CHUNK_VALUES = 2_000_000  # simulated sessions held at once (memory stays bounded for long series)


def robust_spread(diffs: np.ndarray) -> np.ndarray:
    """The standard deviation of a consecutive difference, from |Δ|s (last axis)."""
    spread: np.ndarray = np.median(np.abs(diffs), axis=-1) / NORMAL_MAD
    return spread


@functools.lru_cache(maxsize=256)
def spread_critical(sessions: int, family_error: float) -> float:
    """The c for which a series of `sessions` with no change has a chance `family_error` that any
    consecutive |Δ| exceeds c × its robust spread."""
    pairs = max(1, sessions - 1)
    rng = np.random.default_rng(sessions)
    per_chunk = max(1, CHUNK_VALUES // (pairs + 1))
    ratios = []
    left = DRAWS
    while left > 0:
        k = min(left, per_chunk)
        diffs = np.diff(rng.standard_normal((k, pairs + 1)), axis=1)
        ratios.append(np.abs(diffs).max(axis=1) / robust_spread(diffs))
        left -= k
    return float(np.quantile(np.concatenate(ratios), 1.0 - family_error))
