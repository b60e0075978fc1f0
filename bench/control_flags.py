"""How often the A/A controls flag the harness as biased, on simulated runs whose truths are
fixed by construction: before (any control interval that excludes 1.0) and now
(`stats.control_flags`: equivalence within ±2% fails by two one-sided tests AND a difference
holds after Holm's adjustment over the run's control intervals).

A simulated run has both controls (`--control both`) at four batch sizes: 8 A/A intervals, each
through the project's own `stats.speedup_interval` over `--rounds` paired rounds. Each round's
pair shares a shift (sd 0.1, cancelled by pairing); each process has its own offset, sd 0.01
shared by its batch sizes and sd 0.02 at each one, and five blocks of ten steps with sd 0.02
each (a within-run standard error of about 1.2% at 6 rounds, as measured runs show). A bias
multiplies one control's (or both controls') steps at every batch size. Reported: the share of
runs with any control flagged when there is no bias (the false-flag rate over 8 intervals) and
when the bias is 5% (the power).

Run: .venv/bin/python -m bench.control_flags [--trials 2000] [--rounds 8]   (seconds)
"""

from __future__ import annotations

import argparse

import numpy as np

from tcprof.profiler.analysis import stats

BATCH_SIZES = 4
CONTROLS = 2


def control_intervals(
    biases: tuple[float, ...], rounds: int, rng: np.random.Generator
) -> list[stats.SpeedupInterval]:
    """One run's A/A intervals: each control (bias biases[c]) against its twin at each batch
    size, paired by round."""
    out = []
    for bias in biases:
        shift = rng.normal(0, 0.1, rounds)
        process = rng.normal(0, 0.01, (2, rounds))  # shared by a process's batch sizes
        for _ in range(BATCH_SIZES):
            own = process + rng.normal(0, 0.02, (2, rounds))
            steps = np.exp(rng.normal(0, 0.02, (2, rounds, 5, 10)))
            twin = steps[0] * (4.0 * np.exp(shift + own[0]))[:, None, None]
            control = steps[1] * (4.0 / bias * np.exp(shift + own[1]))[:, None, None]
            interval = stats.speedup_interval(list(twin), list(control))
            assert interval is not None
            out.append(interval)
    return out


def flag_rates(
    biases: tuple[float, ...], rounds: int, trials: int, seed: int
) -> tuple[float, float]:
    """(before, now): the share of runs in which any control interval is flagged."""
    rng = np.random.default_rng(seed)
    before = now = 0
    for _ in range(trials):
        intervals = control_intervals(biases, rounds, rng)
        before += any(i.excludes_one() for i in intervals)
        now += any(stats.control_flags(intervals))
    return before / trials, now / trials


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    cases = {
        "no bias": (1.0,) * CONTROLS,
        "5% bias, one control": (1.05, 1.0),
        "5% bias, both controls": (1.05, 1.05),
    }
    for k, (label, biases) in enumerate(cases.items()):
        before, now = flag_rates(biases, args.rounds, args.trials, seed=23 + k)
        print(
            f"{label}, {CONTROLS * BATCH_SIZES} intervals, {args.rounds} rounds, "
            f"{args.trials} runs: flagged before {before:.1%}, now {now:.1%}"
        )


if __name__ == "__main__":
    main()
