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
    medians = [stats.process_median(p) for p in base]
    assert interval.speedup == pytest.approx(
        float(np.median(medians)) / stats.median_of_medians(arm)
    )


def test_paired_t_interval_is_exact():
    base = [[[4.0]], [[4.0]], [[4.0]]]
    arm = [[[2.0]], [[2.5]], [[1.6]]]  # log ratios ln2, ln1.6, ln2.5
    interval = stats.speedup_interval(base, arm)
    logs = np.log([2.0, 1.6, 2.5])
    half = 4.303 * np.std(logs, ddof=1) / np.sqrt(3)
    assert interval.speedup == 2.0  # median 4.0 / median 2.0
    assert interval.low == pytest.approx(2.0 * np.exp(-half))
    assert interval.high == pytest.approx(2.0 * np.exp(half))


def test_one_process_per_arm_says_the_interval_leaves_processes_out():
    rng = np.random.default_rng(5)
    interval = stats.speedup_interval([_process(rng, 4.0)], [_process(rng, 2.0)])
    assert interval.method == "steps_bootstrap" and not interval.covers_process_variation
    assert interval.low <= interval.speedup <= interval.high


def test_many_rounds_use_a_reproducible_hierarchical_bootstrap():
    rng = np.random.default_rng(9)
    base = [_process(rng, 4.0 * (1 + 0.05 * np.sin(i))) for i in range(8)]
    arm = [_process(rng, 2.0 * (1 + 0.05 * np.cos(i))) for i in range(8)]
    a = stats.speedup_interval(base, arm, rng=np.random.default_rng(1), resamples=300)
    b = stats.speedup_interval(base, arm, rng=np.random.default_rng(1), resamples=300)
    assert a == b and a.method == "hierarchical_bootstrap" and a.processes == 8
    assert a.low <= a.speedup <= a.high and a.low > 1.5 and a.high < 2.6


def test_rounds_missing_on_either_side_are_dropped_from_the_pairing():
    base = [[[4.0]], None, [[4.0]], [[4.0]]]
    arm = [[[2.0]], [[1.0]], None, [[2.0]]]
    interval = stats.speedup_interval(base, arm)
    assert interval.processes == 2 and interval.speedup == 2.0
    assert stats.speedup_interval([None], [[[1.0]]]) is None


def test_a_a_verdict():
    def iv(low, high):
        return stats.SpeedupInterval((low + high) / 2, low, high, "paired_t", 3)

    assert stats.verdict(iv(0.97, 1.04)) == "no_difference"
    assert stats.verdict(iv(1.10, 1.30)) == "faster"
    assert stats.verdict(iv(0.70, 0.90)) == "slower"
    control = iv(0.95, 1.12)  # a noisy machine: eager against eager moves by up to 12%
    assert stats.verdict(iv(1.10, 1.30), control) == "no_difference"
    assert stats.verdict(iv(1.15, 1.30), control) == "faster"
    assert stats.verdict(None) == "unknown"


def test_block_schedule_order():
    assert [stats.round_order(2, r) for r in range(4)] == [[0, 1], [1, 0], [0, 1], [1, 0]]
    assert [stats.block_order([0, 1], b) for b in range(3)] == [[0, 1], [1, 0], [0, 1]]
    three = [stats.round_order(3, r, seed=4) for r in range(6)]
    assert three == [stats.round_order(3, r, seed=4) for r in range(6)], "seeded: reproducible"
    assert all(sorted(o) == [0, 1, 2] for o in three)
    assert len({o[0] for o in three}) > 1, "no arm is always first"


def test_t_quantiles():
    assert stats.t_quantile_975(1) == 12.706 and stats.t_quantile_975(2) == 4.303
    assert 1.96 < stats.t_quantile_975(200) < 1.98
    with pytest.raises(ValueError):
        stats.t_quantile_975(0)
