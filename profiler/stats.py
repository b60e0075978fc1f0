"""Statistics over step times: robust summaries, speedup with a bootstrap CI, break-even.

Pure functions over lists of milliseconds; the random generator is injectable so the
bootstrap is exactly reproducible in tests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_MAX_SAMPLES = 5000  # longer runs are subsampled for the CI: memory and time stay bounded


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    p10: float
    p90: float
    mean: float
    iqr: float
    minimum: float

    @property
    def relative_iqr(self) -> float:
        return self.iqr / self.median if self.median else math.inf


def summarize(ms: Sequence[float]) -> Summary | None:
    if len(ms) == 0:
        return None
    a = np.asarray(ms, dtype=np.float64)
    p10, p25, p50, p75, p90 = np.percentile(a, [10, 25, 50, 75, 90])
    return Summary(
        int(a.size),
        float(p50),
        float(p10),
        float(p90),
        float(a.mean()),
        float(p75 - p25),
        float(a.min()),
    )


def speedup_ci(
    baseline_ms: Sequence[float],
    arm_ms: Sequence[float],
    rng: np.random.Generator | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
) -> tuple[float, float, float] | None:
    """(speedup, low, high): speedup = median(baseline) / median(arm), with a percentile
    bootstrap CI from resampling both arms independently."""
    if len(baseline_ms) == 0 or len(arm_ms) == 0:
        return None
    base = np.asarray(baseline_ms, dtype=np.float64)
    arm = np.asarray(arm_ms, dtype=np.float64)
    point = float(np.median(base) / np.median(arm))
    rng = rng if rng is not None else np.random.default_rng(0)
    base_s = _subsample(base, rng)
    arm_s = _subsample(arm, rng)
    ratios = np.empty(resamples)
    chunk = max(1, 4_000_000 // max(base_s.size, arm_s.size))  # ~32 MB of indices at a time
    for lo in range(0, resamples, chunk):
        hi = min(resamples, lo + chunk)
        b_idx = rng.integers(0, base_s.size, size=(hi - lo, base_s.size))
        a_idx = rng.integers(0, arm_s.size, size=(hi - lo, arm_s.size))
        ratios[lo:hi] = np.median(base_s[b_idx], axis=1) / np.median(arm_s[a_idx], axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return point, float(low), float(high)


def _subsample(a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if a.size <= BOOTSTRAP_MAX_SAMPLES:
        return a
    return rng.choice(a, size=BOOTSTRAP_MAX_SAMPLES, replace=False)


def break_even_steps(
    compile_s: float | None, baseline_median_ms: float, arm_median_ms: float
) -> float | None:
    """Training steps after which the time saved per step has paid for the compile;
    None when the arm saves nothing per step (it never breaks even)."""
    if compile_s is None:
        return None
    saved_ms = baseline_median_ms - arm_median_ms
    if saved_ms <= 0:
        return None
    return max(0.0, compile_s) * 1000.0 / saved_ms


def within_tolerance(
    value: float | None, reference: float | None, rtol: float, atol: float
) -> bool | None:
    if value is None or reference is None:
        return None
    return abs(value - reference) <= atol + rtol * abs(reference)
