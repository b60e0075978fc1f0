from __future__ import annotations

import numpy as np
import pytest

from tcprof.profiler.analysis import stats


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


def test_long_runs_keep_the_bootstrap_bounded():
    rng = np.random.default_rng(3)
    base = 2.0 + rng.random(1_000_000) * 0.01
    arm = 1.0 + rng.random(1_000_000) * 0.01
    point, low, high = stats.speedup_ci(base, arm, rng=np.random.default_rng(0), resamples=200)
    assert low <= point <= high and point == pytest.approx(2.0, rel=0.01)


# -- intervals that cover process variation --------------------------------------------------


def _process(rng: np.random.Generator, centre: float, blocks: int = 5, steps: int = 20):
    """One simulated process: `blocks` blocks of steps around its own centre."""
    return [list(centre + rng.normal(0, 0.01 * centre, steps)) for _ in range(blocks)]


def test_process_shift_widens_the_interval_to_cover_it():
    """Steps inside each process are tight, but the processes' centres differ by up to 20%:
    resampling steps gives a narrow interval that misses; pairing processes covers it."""
    rng = np.random.default_rng(3)
    shifts = [1.0, 1.2, 0.9]  # the machine's state in each round hits both arms alike
    arm_shifts = [1.0, 0.85, 1.15]  # plus process-to-process noise of the arm's own
    base = [_process(rng, 4.0 * s) for s in shifts]
    arm = [_process(rng, 2.0 * s * a) for s, a in zip(shifts, arm_shifts, strict=True)]
    pooled = stats.speedup_ci(
        [ms for p in base[:1] for b in p for ms in b],
        [ms for p in arm[:1] for b in p for ms in b],
        rng=np.random.default_rng(0),
    )
    per_round = [2.0 / a for a in arm_shifts]
    assert not (pooled[1] <= min(per_round) and max(per_round) <= pooled[2])
    interval = stats.speedup_interval(base, arm, rng=np.random.default_rng(0))
    assert interval.method == "paired_t" and interval.processes == 3
    assert interval.covers_process_variation
    assert interval.low < min(per_round) and max(per_round) < interval.high
    logs = [
        np.log(stats.process_median(b) / stats.process_median(a))
        for b, a in zip(base, arm, strict=True)
    ]
    assert interval.speedup == pytest.approx(np.exp(np.mean(logs)))


def test_paired_t_interval_is_exact():
    base = [[[4.0]], [[4.0]], [[4.0]]]
    arm = [[[2.0]], [[2.5]], [[1.6]]]  # log ratios ln2, ln1.6, ln2.5
    interval = stats.speedup_interval(base, arm)
    logs = np.log([2.0, 1.6, 2.5])
    se = np.std(logs, ddof=1) / np.sqrt(3)
    half = 4.302652729911275 * se  # t(2) at 0.975
    centre = np.exp(logs.mean())  # the geometric mean of the per-round ratios: (8)^(1/3) = 2
    assert interval.speedup == pytest.approx(centre) == pytest.approx(2.0)
    assert interval.low == pytest.approx(centre * np.exp(-half))
    assert interval.high == pytest.approx(centre * np.exp(half))
    from scipy.stats import ttest_1samp  # an independent implementation of the same test

    assert interval.p_value == pytest.approx(ttest_1samp(logs, 0.0).pvalue)


def test_centre_and_width_come_from_the_same_pairs():
    """A round where the machine is slow for both arms moves the unpaired medians but not the
    paired ratios: the centre must not move with it."""
    base = [[[4.0]], [[4.0]], [[40.0]], [[4.0]]]
    arm = [[[2.0]], [[2.0]], [[20.0]], [[2.0]]]
    interval = stats.speedup_interval(base, arm)
    assert (interval.speedup, interval.low, interval.high) == (2.0, 2.0, 2.0)


def test_one_process_per_arm_says_the_interval_leaves_processes_out():
    rng = np.random.default_rng(5)
    interval = stats.speedup_interval([_process(rng, 4.0)], [_process(rng, 2.0)])
    assert interval.method == "steps_bootstrap" and not interval.covers_process_variation
    assert interval.low <= interval.speedup <= interval.high and interval.p_value is None


def test_many_rounds_stay_paired_and_reproducible():
    rng = np.random.default_rng(9)
    base = [_process(rng, 4.0 * (1 + 0.05 * np.sin(i))) for i in range(8)]
    arm = [_process(rng, 2.0 * (1 + 0.05 * np.cos(i))) for i in range(8)]
    a = stats.speedup_interval(base, arm, rng=np.random.default_rng(1))
    b = stats.speedup_interval(base, arm, rng=np.random.default_rng(2))
    assert a == b and a.method == "paired_t" and a.processes == 8
    assert a.low <= a.speedup <= a.high and a.low > 1.7 and a.high < 2.3


def test_rounds_missing_on_either_side_are_dropped_from_the_pairing():
    base = [[[4.0]], None, [[4.0]], [[4.0]]]
    arm = [[[2.0]], [[1.0]], None, [[2.0]]]
    interval = stats.speedup_interval(base, arm)
    assert interval.processes == 2 and interval.speedup == 2.0
    assert stats.speedup_interval([None], [[[1.0]]]) is None


# -- coverage: the promise of a 95% interval, checked exactly -----------------------------------

TRUE_SPEEDUP = 1.2


def _coverage(rounds: int, shared_sd: float, own_sd: float, trials: int, seed: int) -> float:
    """The share of `trials` simulated runs whose interval contains the true speedup. Each
    round's pair shares a machine state (a log shift of sd `shared_sd`); each process has its
    own log offset (sd `own_sd`) and five blocks of ten steps with 2% step noise."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(trials):
        shared = rng.normal(0, shared_sd, rounds)
        own = rng.normal(0, own_sd, (2, rounds))
        steps = np.exp(rng.normal(0, 0.02, (2, rounds, 5, 10)))
        base = steps[0] * (4.0 * np.exp(shared + own[0]))[:, None, None]
        arm = steps[1] * (4.0 / TRUE_SPEEDUP * np.exp(shared + own[1]))[:, None, None]
        interval = stats.speedup_interval(list(base), list(arm))
        hits += interval.contains(TRUE_SPEEDUP)
    return hits / trials


@pytest.mark.parametrize("rounds", [2, 3, 5, 6, 8, 12])
@pytest.mark.parametrize(("shared_sd", "own_sd"), [(0.05, 0.03), (0.2, 0.03), (0.2, 0.05)])
def test_the_default_interval_covers_the_truth_19_times_in_20(rounds, shared_sd, own_sd):
    """Under round-to-round machine shifts as large as 20%, at every number of rounds a user
    may choose. An interval centred on unpaired medians covered 75-90% here."""
    covered = _coverage(rounds, shared_sd, own_sd, trials=1000, seed=rounds)
    assert 0.93 <= covered <= 0.975, f"{covered:.1%} coverage"


# -- the verdict, its control, and the family of comparisons -----------------------------------


def _iv(low, high, p=None):
    return stats.SpeedupInterval((low + high) / 2, low, high, "paired_t", 3, p)


def test_a_a_verdict():
    assert stats.verdict(_iv(0.97, 1.04)) == "no_difference"
    assert stats.verdict(_iv(1.10, 1.30)) == "faster"
    assert stats.verdict(_iv(0.70, 0.90)) == "slower"
    biased = _iv(1.01, 1.07)  # a flagged control: identical arms differ by 1-7%
    assert stats.verdict(_iv(1.02, 1.06), biased) == "no_difference", "inside the bias band"
    assert stats.verdict(_iv(1.05, 1.20), biased) == "faster", "beyond it"
    assert stats.verdict(_iv(0.95, 0.98), biased) == "slower", "the band is [1.0, 1.07]"
    one_round = stats.SpeedupInterval(1.04, 1.01, 1.07, "steps_bootstrap", 1)
    assert stats.verdict(_iv(1.02, 1.06), one_round) == "faster", "no interval, no band"
    assert stats.verdict(None) == "unknown"


def _control(logs):
    """An A/A interval from its rounds' log ratios (one process median per round)."""
    rounds = [np.array([4.0 * np.exp(x)]) for x in logs]
    interval = stats.speedup_interval([np.array([4.0])] * len(logs), rounds)
    assert interval is not None
    return interval


def test_a_control_is_flagged_only_where_equivalence_fails_and_a_difference_holds():
    precise_small = _control([-0.005, -0.006, -0.004, -0.005, -0.0055, -0.0045])  # 0.5%, sure
    precise_large = _control([-0.05, -0.051, -0.049, -0.05, -0.0505, -0.0495])  # 5%, sure
    noisy_large = _control([-0.15, 0.05, -0.10, 0.02, -0.08, 0.0])  # ~4.5%, but p > 0.05
    assert precise_small.excludes_one() and noisy_large.contains(1.0)
    assert stats.equivalence_p(precise_small) < 0.05, "shown within ±2%"
    assert stats.equivalence_p(precise_large) > 0.5
    one_round = stats.SpeedupInterval(1.1, 1.05, 1.2, "steps_bootstrap", 1)
    assert stats.equivalence_p(one_round) is None
    flags = stats.control_flags([precise_small, precise_large, noisy_large, one_round, None])
    assert flags == [False, True, False, None, None]


def test_control_flags_adjust_for_the_run_s_number_of_control_intervals():
    """Eight controls each at p about 0.03 and none shown equivalent: an unadjusted test flags
    all eight, Holm's none."""
    logs = [0.04, 0.0, 0.06, 0.01, 0.05, 0.02]  # 3%, p about 0.03: not within ±2%
    controls = [_control(logs)] * 8
    assert 0.01 < controls[0].p_value < 0.05 and controls[0].excludes_one()
    assert stats.control_flags(controls) == [False] * 8
    assert stats.control_flags(controls[:1]) == [True]


def test_flawless_controls_are_rarely_flagged_and_a_5_percent_bias_mostly():
    """By simulation with a known truth (bench/control_flags.py's model, fewer runs): both
    controls at four batch sizes, 8 rounds (--control both's default)."""
    from bench.control_flags import flag_rates

    before, now = flag_rates((1.0, 1.0), rounds=8, trials=300, seed=5)
    assert before > 0.2, "the unadjusted rule flagged a flawless harness often"
    assert now <= 0.075, f"{now:.1%} of flawless runs flagged (5% expected at most, ±2.5%)"
    _, power = flag_rates((1.05, 1.0), rounds=8, trials=100, seed=6)
    assert power >= 0.8, f"a 5% bias flagged in {power:.0%} of runs"


def test_holm_step_down():
    assert stats.holm([0.01, 0.04, 0.03, None], 0.05) == [True, False, False, None]
    assert stats.holm([0.001, 0.02, 0.04], 0.05) == [True, True, True]  # 0.05/3, /2, /1
    assert stats.holm([0.02, 0.02, 0.02], 0.05) == [False, False, False]
    assert stats.holm([]) == []


def test_t_quantiles():
    assert stats.t_quantile_975(1) == pytest.approx(12.7062, abs=1e-4)
    assert stats.t_quantile_975(2) == pytest.approx(4.3027, abs=1e-4)
    assert stats.t_quantile(5, 0.90) == pytest.approx(2.0150, abs=1e-4)
    assert 1.96 < stats.t_quantile_975(200) < 1.98
    assert stats.t_two_sided_p(2.5706, 5) == pytest.approx(0.05, abs=1e-4)
    with pytest.raises(ValueError):
        stats.t_quantile_975(0)


def test_a_process_figure_is_the_median_of_its_block_medians():
    """A contended block keeps its step count with every step many times longer: pooled, one
    such block in five moves the median (to 3.5 here); the median of block medians stays at
    the calm blocks' 3.0."""
    calm = [[2.0, 2.5, 3.0, 3.5, 4.0]] * 4
    contended = [[40.0, 45.0, 50.0, 44.0, 46.0]]
    assert stats.process_median(calm + contended) == pytest.approx(3.0)
    pooled = float(np.median(np.concatenate([np.asarray(b) for b in calm + contended])))
    assert pooled == pytest.approx(3.5)
    assert stats.process_median([[1.0, 2.0, 3.0]]) == 2.0
    assert stats.process_median(np.array([[1.0, 2.0, 9.0], [2.0, 3.0, 4.0]])) == 2.5
    assert stats.process_median([]) is None and stats.process_median([[]]) is None
