"""Statistics over step times: robust summaries, a speedup interval that covers process
variation, the A/A verdict, break-even.

Pure functions over lists of milliseconds; the random generator is injectable so the
bootstraps are exactly reproducible in tests. The method behind the speedup interval is
explained in docs/methodology.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_MAX_SAMPLES = 5000  # longer runs are subsampled for the CI: memory and time stay bounded
HIERARCHICAL_MIN_PROCESSES = 8  # from this many paired processes on, a hierarchical bootstrap

# Two-sided 95% quantiles of Student's t, by degrees of freedom (numpy has no t distribution).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


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


def t_quantile_975(df: int) -> float:
    """Student's t at 0.975 (a two-sided 95% interval) for `df` degrees of freedom."""
    if df < 1:
        raise ValueError("a t interval needs at least two paired processes")
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df


Blocks = Sequence[Sequence[float]]  # one process: its measured blocks, each a list of ms


def process_median(blocks: Blocks) -> float | None:
    """The median step time of one process (all its measured blocks together)."""
    steps = [ms for block in blocks for ms in block]
    return float(np.median(steps)) if steps else None


def median_of_medians(processes: Sequence[Blocks]) -> float | None:
    medians = [m for m in (process_median(p) for p in processes) if m is not None]
    return float(np.median(medians)) if medians else None


@dataclass(frozen=True)
class SpeedupInterval:
    """speedup = median of the baseline's process medians / median of the arm's.

    method: "paired_t" (a t interval on the per-round log ratios of paired processes),
    "hierarchical_bootstrap" (rounds, then blocks within each process, resampled), or
    "steps_bootstrap" (one process per arm: steps resampled, process variation left out)."""

    speedup: float
    low: float
    high: float
    method: str
    processes: int  # paired rounds the interval rests on

    @property
    def covers_process_variation(self) -> bool:
        return self.method != "steps_bootstrap"

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def overlaps(self, other: SpeedupInterval) -> bool:
        return self.low <= other.high and other.low <= self.high


def speedup_interval(
    baseline: Sequence[Blocks | None],
    arm: Sequence[Blocks | None],
    rng: np.random.Generator | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> SpeedupInterval | None:
    """The speedup of `arm` over `baseline` with a 95% interval.

    Both are indexed by round (replicate): round r's baseline process ran interleaved with
    round r's arm process, so the pair shares the machine's state at that time. Rounds where
    either side has no samples are dropped from the pairing."""
    pairs = [
        (b, a)
        for b, a in zip(baseline, arm, strict=False)
        if b is not None and a is not None and process_median(b) and process_median(a)
    ]
    if not pairs:
        return None
    base_meds = np.array([process_median(b) for b, _ in pairs])
    arm_meds = np.array([process_median(a) for _, a in pairs])
    point = float(np.median(base_meds) / np.median(arm_meds))
    rng = rng if rng is not None else np.random.default_rng(0)
    if len(pairs) == 1:
        b_steps = [ms for block in pairs[0][0] for ms in block]
        a_steps = [ms for block in pairs[0][1] for ms in block]
        ci = speedup_ci(b_steps, a_steps, rng=rng, resamples=resamples)
        assert ci is not None
        return SpeedupInterval(point, min(ci[1], point), max(ci[2], point), "steps_bootstrap", 1)
    if len(pairs) < HIERARCHICAL_MIN_PROCESSES:
        logs = np.log(base_meds / arm_meds)
        half = t_quantile_975(len(logs) - 1) * float(np.std(logs, ddof=1)) / math.sqrt(len(logs))
        centre = math.log(point)  # the interval's width from the pairs, centred on the estimate
        return SpeedupInterval(
            point, math.exp(centre - half), math.exp(centre + half), "paired_t", len(pairs)
        )
    ratios = _hierarchical_bootstrap(pairs, rng, resamples)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return SpeedupInterval(
        point, min(float(low), point), max(float(high), point), "hierarchical_bootstrap", len(pairs)
    )


def _hierarchical_bootstrap(
    pairs: list[tuple[Blocks, Blocks]], rng: np.random.Generator, resamples: int
) -> np.ndarray:
    """Resample rounds (keeping each round's pair together), then blocks within each process;
    a process's median is taken over its resampled blocks' steps."""
    arrays = [([np.asarray(x) for x in b], [np.asarray(x) for x in a]) for b, a in pairs]
    n = len(arrays)
    out = np.empty(resamples)
    for i in range(resamples):
        base_meds: list[float] = []
        arm_meds: list[float] = []
        for r in rng.integers(0, n, size=n):
            for blocks, meds in ((arrays[r][0], base_meds), (arrays[r][1], arm_meds)):
                picked = rng.integers(0, len(blocks), size=len(blocks))
                meds.append(np.median(np.concatenate([blocks[j] for j in picked])))
        out[i] = np.median(base_meds) / np.median(arm_meds)
    return out


def verdict(interval: SpeedupInterval | None, control: SpeedupInterval | None = None) -> str:
    """ "faster", "slower" or "no_difference": an interval containing 1.0, or overlapping the
    A/A control's interval (the noise floor), is no difference beyond noise."""
    if interval is None:
        return "unknown"
    if interval.contains(1.0) or (control is not None and interval.overlaps(control)):
        return "no_difference"
    return "faster" if interval.low > 1.0 else "slower"


def round_order(n_arms: int, round_no: int, seed: int = 0) -> list[int]:
    """The order the arms take within a round: ABBA for two arms (so neither is always first
    or always right after the other's compile), a seeded shuffle for more."""
    arms = list(range(n_arms))
    if n_arms <= 2:
        return arms if round_no % 2 == 0 else arms[::-1]
    rng = np.random.default_rng([seed, round_no])
    return [int(i) for i in rng.permutation(n_arms)]


def block_order(round_arms: Sequence[int], block_no: int) -> list[int]:
    """Blocks alternate direction within a round (A B, B A, A B, ...)."""
    return list(round_arms) if block_no % 2 == 0 else list(round_arms)[::-1]
