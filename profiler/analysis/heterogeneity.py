"""Do repeated runs of one command agree? Cochran's Q over k runs' log speedups, with a p-value
calibrated by simulation for standard errors that are themselves estimated from few rounds.

Q = sum w_i (y_i - ybar_w)^2, w_i = 1 / se_i^2, is chi-square with k - 1 degrees of freedom
only where every se_i is known exactly. A run's se is estimated from its own rounds (a paired t
over 4-8 rounds: 3-7 degrees of freedom), so each term is nearer a squared t than a squared
normal and its tails are heavy: the chi-square reference rejects a flawless method far more
often than it says (bench/repeat_runs.py, docs/methodology.md). The calibrated p-value is Q's
tail under a flawless method simulated as the runs were measured: each run's point drawn from
N(mu, sigma_i^2) and its standard error from sigma_i * sqrt(chi2(df_i) / df_i) (Q depends on
neither mu nor a common scale). sigma_i: equal for every run by default ("equal": exact for
normal rounds of equal noise, 3.9-6.2% at 5% whether the runs' true errors differ by a factor of
1.6 or not), or each run's observed se ("observed": 3.2-4.7% at 4-8 rounds in one simulation,
the observed errors' own spread counted twice); tests/profiler/analysis/test_heterogeneity.py.
Seeded, so the same runs give the same p everywhere.

Pure functions; scipy is imported where used (the window imports analysis, not scipy).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tcprof.profiler.analysis.stats import t_quantile
from tcprof.profiler.model.row import Speedup

DRAWS = 4000  # simulated flawless sets of runs: a p near 5% is within about ±0.7%
SEED = 20261206


@dataclass(frozen=True)
class RunEstimate:
    """One run's log speedup, its standard error and the degrees of freedom behind that error
    (a paired t over R rounds: R - 1)."""

    log_speedup: float
    se: float
    df: int


@dataclass(frozen=True)
class Heterogeneity:
    """Cochran's Q over `k` runs, its calibrated p-value (`p`), the plain chi-square one
    (`p_chi2`, which assumes known errors and overstates), and the runs' pooled speedup
    (inverse-variance weighted, on the log scale)."""

    q: float
    k: int
    p: float
    p_chi2: float
    pooled: float
    draws: int

    def agree(self, alpha: float = 0.05) -> bool:
        """Between-run heterogeneity not significant at `alpha` by the calibrated test."""
        return self.p >= alpha


def se_from_interval(low: float, high: float, level: float, rounds: int) -> float:
    """The standard error of the mean log ratio behind a paired t interval at `level` over
    `rounds` rounds: its log half-width over t(level, rounds - 1)."""
    return math.log(high / low) / 2 / t_quantile(rounds - 1, level)


def estimate_of(speedup: Speedup) -> RunEstimate | None:
    """A saved row's speedup as one run's estimate: its se as saved, or recovered from the
    interval shown at its own level; None without a paired interval of two or more rounds."""
    rounds = speedup.rounds
    if speedup.method != "paired_t" or rounds is None or rounds < 2:
        return None
    se = speedup.se_log
    ci, level = speedup.interval, speedup.level
    if se is None and ci is not None and ci.low and ci.high and level is not None:
        se = se_from_interval(ci.low, ci.high, level, rounds)
    if se is None or not se > 0:
        return None
    return RunEstimate(math.log(speedup.value), se, rounds - 1)


def cochran_q(points: np.ndarray, ses: np.ndarray) -> np.ndarray:
    """Q over the last axis: the weighted squared distance of each point from their
    inverse-variance weighted mean."""
    w = 1.0 / ses**2
    centre = (w * points).sum(axis=-1, keepdims=True) / w.sum(axis=-1, keepdims=True)
    q: np.ndarray = (w * (points - centre) ** 2).sum(axis=-1)
    return q


def null_q(
    sigmas: Sequence[float], dfs: Sequence[int], draws: int = DRAWS, seed: int = SEED
) -> np.ndarray:
    """Q of `draws` simulated sets of runs from a flawless method: run i's point from
    N(0, sigma_i^2), its se from sigma_i * sqrt(chi2(df_i) / df_i)."""
    rng = np.random.default_rng(seed)
    sigma = np.asarray(sigmas, dtype=np.float64)
    df = np.asarray(dfs, dtype=np.float64)
    points = rng.standard_normal((draws, sigma.size)) * sigma
    estimated = sigma * np.sqrt(rng.chisquare(df, (draws, sigma.size)) / df)
    return cochran_q(points, estimated)


EQUAL, OBSERVED = "equal", "observed"  # the flawless method's errors: see the module's doc


def heterogeneity(
    runs: Sequence[RunEstimate], draws: int = DRAWS, seed: int = SEED, errors: str = EQUAL
) -> Heterogeneity | None:
    """Cochran's Q over the runs with its calibrated and chi-square p-values; None below two
    runs. `errors`: the simulated runs' true errors, EQUAL or OBSERVED."""
    if len(runs) < 2:
        return None
    from scipy.special import chdtrc  # here: the window imports analysis, not scipy

    points = np.array([r.log_speedup for r in runs])
    ses = np.array([r.se for r in runs])
    q = float(cochran_q(points, ses))
    sigmas = list(ses) if errors == OBSERVED else [1.0] * len(runs)
    simulated = null_q(sigmas, [r.df for r in runs], draws, seed)
    p = (1 + int((simulated >= q).sum())) / (draws + 1)
    w = 1.0 / ses**2
    pooled = math.exp(float((w * points).sum() / w.sum()))
    return Heterogeneity(q, len(runs), p, float(chdtrc(len(runs) - 1, q)), pooled, draws)
