"""Break-even steps with an interval that carries every measured source of uncertainty: the
compile cost, the baseline's step time and the speedup (docs/methodology.md, "Break-even").

A step saves `baseline × (1 − 1/speedup)`, which in round r is the baseline process's median
less the arm's (b_r − a_r): the saving is measured per round, paired, so the baseline's
round-to-round variation and the speedup's enter it together. Break-even is the compile cost
over the mean saving, a ratio of two means; its interval is Fieller's. The compile cost is one
value per cold round (an empty cache): with one cold round its uncertainty is unknown and left
out (warm rounds measure another cost, whose spread is not the cold's)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tcprof.profiler.analysis.stats import t_quantile


@dataclass(frozen=True)
class BreakEven:
    """Steps after which the compile has paid for itself, with its interval at `level`. steps
    is None where the mean saving is not positive (it never pays back); high is None where the
    saving's own interval reaches 0 (within noise it may never pay back)."""

    steps: float | None
    low: float | None
    high: float | None
    cost_rounds: int  # the cold rounds the compile cost rests on (1: its spread is unknown)
    saving_rounds: int  # the paired rounds the saving rests on


def break_even(
    costs_s: Sequence[float],
    baseline_ms: Sequence[float],
    arm_ms: Sequence[float],
    level: float = 0.95,
) -> BreakEven | None:
    """Fieller's interval for mean(costs) / mean(baseline − arm), numerator and denominator
    independent (the cold rounds' compiles against the rounds' steady steps). `baseline_ms`
    and `arm_ms` are the process medians of each round, paired by index. None without a cost
    or without two paired rounds (no spread to measure)."""
    costs = np.asarray([max(0.0, c) * 1000.0 for c in costs_s], dtype=np.float64)
    saved = np.asarray([b - a for b, a in zip(baseline_ms, arm_ms, strict=True)], np.float64)
    if costs.size == 0 or saved.size < 2:
        return None
    c, m = float(costs.mean()), float(saved.mean())
    v_c = float(costs.var(ddof=1)) / costs.size if costs.size > 1 else 0.0
    v_m = float(saved.var(ddof=1)) / saved.size
    if m <= 0:
        return BreakEven(None, None, None, int(costs.size), int(saved.size))
    point = c / m
    q = t_quantile(_df(v_c, costs.size, point**2 * v_m, saved.size), level)
    a = m * m - q * q * v_m  # > 0: the saving's own interval excludes 0
    disc = (c * m) ** 2 - a * (c * c - q * q * v_c)
    if a <= 0 or disc < 0:  # the interval of the saving reaches 0: no upper end
        low = c / (m + q * math.sqrt(v_m))
        return BreakEven(point, low, None, int(costs.size), int(saved.size))
    root = math.sqrt(disc)
    low, high = (c * m - root) / a, (c * m + root) / a
    return BreakEven(point, max(0.0, low), high, int(costs.size), int(saved.size))


def _df(v_c: float, n_c: int, v_s: float, n_s: int) -> float:
    """Welch-Satterthwaite degrees of freedom of the two variance terms at the point estimate;
    one cold round contributes no term (its variance is unknown, not zero: the method says so)."""
    if v_c <= 0 or n_c < 2:
        return float(n_s - 1)
    if v_s <= 0:
        return float(n_c - 1)
    return (v_c + v_s) ** 2 / (v_c**2 / (n_c - 1) + v_s**2 / (n_s - 1))
