"""Statistics over step times: robust summaries, a speedup interval that covers process
variation, the A/A control judged by equivalence (TOST) and the verdict against it, Holm's
adjustment across a run's comparisons, break-even with its interval. (The order arms run in is schedule.py's.)

Pure functions over lists of milliseconds; the random generator is injectable so the
bootstraps are exactly reproducible in tests. The method behind the speedup interval is
explained in docs/methodology.md.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# The one rule of a settled interval and the verdict of one round are the model's (model/rules.py:
# the model applies them when it reads a saved row); re-exported here for the run's statistics.
from tcprof.profiler.model.rules import NO_INTERVAL as NO_INTERVAL
from tcprof.profiler.model.rules import SETTLED_RATIO as SETTLED_RATIO
from tcprof.profiler.model.rules import settled as settled

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


def t_quantile(df: float, level: float = 0.95) -> float:
    """Student's t quantile for a two-sided interval at `level` with `df` degrees of freedom
    (Welch's may be fractional)."""
    if df < 1:
        raise ValueError("a t interval needs at least two paired processes")
    from scipy.special import stdtrit  # here: the window imports this module, not scipy

    return float(stdtrit(df, 1 - (1 - level) / 2))


def t_quantile_975(df: int) -> float:
    """Student's t at 0.975 (a two-sided 95% interval) for `df` degrees of freedom."""
    return t_quantile(df, 0.95)


def t_two_sided_p(t: float, df: int) -> float:
    """The two-sided p-value of a t statistic."""
    from scipy.special import stdtr

    return float(2 * stdtr(df, -abs(t)))


Blocks = Sequence[Sequence[float]]  # one process: its measured blocks, each a list of ms


def process_median(blocks: Blocks) -> float | None:
    """One process's figure: the median of its blocks' median steps.

    Not the median of all its steps pooled: a block beside a busy neighbour keeps its step
    count while each step takes many times longer (13x here), so one such block in five moved
    the pooled median, the two arms unequally. Over 30 known-truth runs under the neighbour
    that comes and goes, pooled steps put repeat2 4.1% [2.2, 6.1] below its truth and covered
    eager's A/A twin 26 times in 30; the median of block medians, on the same blocks, 1.7%
    [-0.1, 3.4] and 29 in 30, and on 30 quiet runs the same as pooled (docs/methodology.md,
    "A process's figure")."""
    if isinstance(blocks, np.ndarray):  # simulations: one block (1-D) or blocks x steps (2-D)
        if not blocks.size:
            return None
        if blocks.ndim == 2:
            return float(np.median(np.median(blocks, axis=1)))
        return float(np.median(blocks))
    parts = [np.asarray(block, dtype=np.float64).ravel() for block in blocks]
    medians = [float(np.median(part)) for part in parts if part.size]
    return float(np.median(medians)) if medians else None


def median_of_medians(processes: Sequence[Blocks]) -> float | None:
    medians = [m for m in (process_median(p) for p in processes) if m is not None]
    return float(np.median(medians)) if medians else None


@dataclass(frozen=True)
class SpeedupInterval:
    """A speedup with its 95% interval, both from one estimator.

    method "paired_t": round r's baseline and arm processes ran interleaved and share the
    machine's state, so each round gives one log ratio of process medians; the speedup is
    their geometric mean and the interval a t interval around it (docs/methodology.md shows
    its coverage). "steps_bootstrap": one process per arm, steps resampled (process
    variation left out): no 95% interval of the speedup, so session rows keep it apart
    (speedup_ci_one_process) and its verdict is NO_INTERVAL. Sessions saved before schema 3 may also say
    "hierarchical_bootstrap"."""

    speedup: float
    low: float
    high: float
    method: str
    processes: int  # paired rounds the interval rests on
    p_value: float | None = None  # two-sided, of "no difference" (speedup 1.0)
    se_log: float | None = None  # paired t: the standard error of the mean log ratio

    @property
    def covers_process_variation(self) -> bool:
        """False for one round's bootstrap of steps: it is no 95% interval of the speedup (it
        covered a known truth about 19% of the time by simulation) and is never shown as one."""
        return self.method != "steps_bootstrap"

    @property
    def settled(self) -> bool:
        return self.covers_process_variation and settled(self.low, self.high)

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def excludes_one(self) -> bool:
        return not self.contains(1.0)


def speedup_interval(
    baseline: Sequence[Blocks | None],
    arm: Sequence[Blocks | None],
    rng: np.random.Generator | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
) -> SpeedupInterval | None:
    """The speedup of `arm` over `baseline` with an interval at `level`.

    Both are indexed by round (replicate): round r's baseline process ran interleaved with
    round r's arm process, so the pair shares the machine's state at that time. Rounds where
    either side has no samples are dropped from the pairing. With two or more pairs, the
    centre and the width come from the same paired log ratios: centring on a ratio of
    unpaired medians instead brings back the round-to-round variation that pairing removes,
    and such an interval covered the truth 80-90% of the time, not 95%."""
    pairs, base_meds, arm_meds = _paired(baseline, arm)
    if not pairs:
        return None
    if len(pairs) == 1:
        rng = rng if rng is not None else np.random.default_rng(0)
        b_steps = [ms for block in pairs[0][0] for ms in block]
        a_steps = [ms for block in pairs[0][1] for ms in block]
        ci = speedup_ci(b_steps, a_steps, rng=rng, resamples=resamples, level=level)
        assert ci is not None
        point, low, high = ci
        return SpeedupInterval(point, min(low, point), max(high, point), "steps_bootstrap", 1)
    logs = np.log(np.asarray(base_meds) / np.asarray(arm_meds))
    n = len(logs)
    centre = float(logs.mean())
    se = float(np.std(logs, ddof=1)) / math.sqrt(n)
    half = t_quantile(n - 1, level) * se
    if se > 0:
        p = t_two_sided_p(centre / se, n - 1)
    else:
        p = 1.0 if centre == 0 else 0.0
    return SpeedupInterval(
        math.exp(centre), math.exp(centre - half), math.exp(centre + half), "paired_t", n, p, se
    )


def _paired(
    baseline: Sequence[Blocks | None], arm: Sequence[Blocks | None]
) -> tuple[list[tuple[Blocks, Blocks]], list[float], list[float]]:
    """The rounds where both sides have samples: (their blocks, baseline medians, arm medians)."""
    pairs, base_meds, arm_meds = [], [], []
    for b, a in zip(baseline, arm, strict=False):
        mb = process_median(b) if b is not None else None
        ma = process_median(a) if a is not None else None
        if b is not None and a is not None and mb and ma:
            pairs.append((b, a))
            base_meds.append(mb)
            arm_meds.append(ma)
    return pairs, base_meds, arm_meds


def paired_rounds(baseline: Sequence[Blocks | None], arm: Sequence[Blocks | None]) -> int:
    """How many rounds speedup_interval would pair (two or more: a paired t interval)."""
    return len(_paired(baseline, arm)[0])


def simultaneous_level(comparisons: int, family_alpha: float = 0.05) -> float:
    """Bonferroni: each of `comparisons` intervals at 1 - alpha/m, so that all of them cover
    their truths together at least 1 - alpha of the time (any dependence between them). One
    comparison: the plain 95% interval."""
    return 1.0 - family_alpha / max(1, comparisons)


def at_level(interval: SpeedupInterval, level: float) -> SpeedupInterval:
    """The same paired t interval at another level (same centre and standard error); an
    interval without a paired standard error is returned unchanged."""
    if interval.method != "paired_t" or interval.se_log is None or interval.processes < 2:
        return interval
    centre = math.log(interval.speedup)
    half = t_quantile(interval.processes - 1, level) * interval.se_log
    return dataclasses.replace(interval, low=math.exp(centre - half), high=math.exp(centre + half))


def log_mean_se(values: Sequence[float]) -> tuple[float, float, int] | None:
    """(mean, standard error of the mean, n) of positive values on the log scale; None below
    two values (one value has no spread to measure)."""
    logs = [math.log(v) for v in values if v > 0 and math.isfinite(v)]
    if len(logs) < 2:
        return None
    a = np.asarray(logs)
    return float(a.mean()), float(a.std(ddof=1)) / math.sqrt(a.size), int(a.size)


def difference_interval(
    before: tuple[float, float, int], after: tuple[float, float, int], level: float = 0.95
) -> tuple[float, float, float]:
    """(d, low, high): after's mean minus before's, on the log scale, with a Welch t interval.

    Each side is (mean, standard error, n) from its own rounds; two sessions share no rounds,
    so the errors add in quadrature, se = sqrt(se_a^2 + se_b^2), with Welch-Satterthwaite's
    degrees of freedom (t reference, not normal: a session has few rounds)."""
    (mb, sb, nb), (ma, sa, na) = before, after
    d = ma - mb
    var_b, var_a = sb**2, sa**2
    se = math.sqrt(var_b + var_a)
    denominator = var_b**2 / (nb - 1) + var_a**2 / (na - 1)
    df = (var_b + var_a) ** 2 / denominator if denominator > 0 else nb + na - 2
    half = t_quantile(max(1.0, df), level) * se
    return d, d - half, d + half


# The harness adds no difference beyond this between identical arms: the equivalence margin
# of the A/A control, declared once (±2% on the log scale: 1/1.02 to 1.02).
EQUIVALENCE_MARGIN = 0.02


def equivalence_p(control: SpeedupInterval, margin: float = EQUIVALENCE_MARGIN) -> float | None:
    """Two one-sided tests (TOST) of "the harness differs by less than ±margin" on the paired
    log ratio: the larger of the two one-sided p-values. Small: the control is shown
    equivalent to its twin; None without a paired t interval (one round)."""
    if control.method != "paired_t" or control.se_log is None or control.processes < 2:
        return None
    from scipy.special import stdtr

    bound, centre, df = math.log1p(margin), math.log(control.speedup), control.processes - 1
    if control.se_log <= 0:
        return 0.0 if abs(centre) < bound else 1.0
    p_above_low = float(stdtr(df, -(centre + bound) / control.se_log))  # H0: centre <= -bound
    p_below_high = float(stdtr(df, (centre - bound) / control.se_log))  # H0: centre >= +bound
    return max(p_above_low, p_below_high)


def control_flags(
    controls: Sequence[SpeedupInterval | None],
    alpha: float = 0.05,
    margin: float = EQUIVALENCE_MARGIN,
) -> list[bool | None]:
    """Which of a run's A/A control intervals show the harness itself differs: equivalence
    within ±margin fails (TOST at `alpha`) AND the difference is real (the paired t test of
    "no difference", Holm-adjusted across all of them at family-wise `alpha`). An unadjusted
    test over 8 intervals flags a flawless harness 34% of the time; a noisy interval that can
    show neither equivalence nor a difference is not a known bias. None: no paired interval."""
    usable = [c if c is not None and c.method == "paired_t" else None for c in controls]
    differs = holm([c.p_value if c is not None else None for c in usable], alpha)
    out: list[bool | None] = []
    for c, real in zip(usable, differs, strict=True):
        if c is None or real is None:
            out.append(None)
            continue
        p_eq = equivalence_p(c, margin)
        out.append(bool(real) and not (p_eq is not None and p_eq < alpha))
    return out


def verdict(
    interval: SpeedupInterval | None, flagged_control: SpeedupInterval | None = None
) -> str:
    """ "faster", "slower" or "no_difference"; NO_INTERVAL for one round's bootstrap of steps,
    which is no interval of the speedup.

    An arm is within noise when its interval contains 1.0, or when a flagged A/A control
    (control_flags: the harness shown to differ) gives a bias band [min(1, low), max(1, high)]
    and the arm's interval lies inside it: a difference the harness shows between identical
    arms explains it. Pass only a flagged control: an unflagged one is noise the arm's own
    interval already carries, not a known bias, so it does not widen the arm's."""
    if interval is None:
        return "unknown"
    if not interval.covers_process_variation:
        return NO_INTERVAL
    if interval.contains(1.0):
        return "no_difference"
    control = flagged_control
    if control is not None and control.covers_process_variation:
        band_low, band_high = min(1.0, control.low), max(1.0, control.high)
        if band_low <= interval.low and interval.high <= band_high:
            return "no_difference"
    return "faster" if interval.low > 1.0 else "slower"


def holm(p_values: Sequence[float | None], alpha: float = 0.05) -> list[bool | None]:
    """Holm's step-down: which of a family of tests reject "no difference" at family-wise
    level `alpha`; None where a test has no p-value (it is left out of the family)."""
    ranked = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    out: list[bool | None] = [None if p is None else False for p in p_values]
    m = len(ranked)
    for k, (p, i) in enumerate(ranked):
        if p > alpha / (m - k):
            break
        out[i] = True
    return out
