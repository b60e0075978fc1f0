"""What the rounds' draws (profiler/run/draws.py) do to coverage, by simulation with a known
truth: a periodic load locked onto one arm's blocks, and a speedup that depends on the seed.

Each simulated run has R rounds of two processes (baseline, arm) in a Williams order, five
blocks of ten steps each, the blocks alternating direction (schedule.block_order); each round
shares a machine shift (sd 5%), each process has its own offset (sd 3%) and each step 2% noise,
as bench/interval_coverage.py. The interval is tcprof's paired t interval over the rounds' log
ratios of process medians (analysis/stats.speedup_interval, vectorised here).

Locked load: a load that is on for half of a period P and slows whatever runs then by 2%. Today
the schedule repeats its timing, so it meets the arm's blocks at the phase where it is on and
the baseline's where it is off, in every round: a 2% push on one arm. With the random wait
before each block (uniform 0-`wait` s), each block's start moves by the sum of the waits drawn
before it in the run (their mean is part of the schedule, so only their spread moves the phase):
the phase spreads by about 14 ms x sqrt(blocks run), which scatters a short period's phase over
the whole cycle and a long one's hardly at all. `--phase uniform` gives each block a phase drawn
uniformly over the cycle (what the wait achieves for a period up to the wait).

Seed effect: the true speedup of seed s is exp(N(log 1.2, tau)); the truth the interval is meant
to cover is the speedup over seeds (1.2, the geometric mean). Today every round uses the run's
seed (one draw per run); now each round draws its own.

Run: .venv/bin/python -m bench.round_draws_coverage [--trials 4000]   (about a minute)
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from tcprof.profiler.analysis import stats

TRUTH = 1.2
BASE_MS = 4.0
BLOCKS, STEPS = 5, 10
SHARED, OWN, STEP = 0.05, 0.03, 0.02
PUSH = 0.02  # the load's slowdown while it is on


def _overlap_on(phase: np.ndarray, block_s: float, period_s: float) -> np.ndarray:
    """The share of a block [phase, phase + block_s) during which a load that is on for the
    first half of each period runs (phase in seconds, any real)."""
    half = period_s / 2

    def on_until(t: np.ndarray) -> np.ndarray:  # seconds the load was on in [0, t)
        cycles, rest = np.divmod(t, period_s)
        return cycles * half + np.minimum(rest, half)

    return (on_until(phase + block_s) - on_until(phase)) / block_s


def coverage(
    rounds: int,
    trials: int,
    seed: int,
    lock: str = "none",  # none | locked | uniform | waits
    period_s: float = 0.05,
    wait_s: float = 0.05,
    tau: float = 0.0,
    per_round_seed: bool = True,
) -> float:
    """The share of runs whose 95% interval holds the truth (TRUTH)."""
    rng = np.random.default_rng(seed)
    shape = (trials, rounds)
    shift = rng.normal(0, SHARED, shape)
    own = rng.normal(0, OWN, (2, *shape))
    steps = np.exp(rng.normal(0, STEP, (2, *shape, BLOCKS, STEPS)))
    seeds = rng.normal(0, tau, shape if per_round_seed else (trials, 1))
    true_log = math.log(TRUTH) + seeds  # the seed's own truth, per round (or per run)
    push = np.zeros((2, *shape, BLOCKS))
    if lock != "none":
        # today's locked phases: the arm's blocks start where the load is on, the baseline's
        # where it is off (block = half a period)
        block_s = period_s / 2
        locked = np.array([block_s, 0.0])[:, None, None, None]
        if lock == "locked":
            phase = np.broadcast_to(locked, push.shape)
        elif lock == "uniform":
            phase = rng.uniform(0, period_s, push.shape)
        else:  # the waits drawn before each block, in the order blocks run in the run
            waits = rng.uniform(0, wait_s, (*shape, BLOCKS, 2)) - wait_s / 2
            walk = np.cumsum(waits.reshape(trials, -1), axis=1).reshape(*shape, BLOCKS, 2)
            phase = locked + np.moveaxis(walk, -1, 0)
        push = PUSH * _overlap_on(phase, block_s, period_s)
    scale = np.exp(shift + own)  # the process's level: the round's machine and its own
    times = steps * scale[..., None, None] * (1 + push)[..., None]
    times[0] *= BASE_MS
    times[1] *= BASE_MS / np.exp(true_log)[..., None, None]
    medians = np.median(times.reshape(2, trials, rounds, -1), axis=-1)
    logs = np.log(medians[0] / medians[1])
    centre = logs.mean(axis=1)
    half = stats.t_quantile(rounds - 1) * logs.std(axis=1, ddof=1) / math.sqrt(rounds)
    return float(np.mean(np.abs(centre - math.log(TRUTH)) <= half))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=4000)
    args = parser.parse_args()
    n = args.trials
    print(f"coverage of the truth ({TRUTH}) by the 95% interval, {n} runs per cell")
    print("\na 2% push locked onto the arm's blocks (period 50 ms, blocks of 25 ms)")
    print("rounds  no load  locked (today)  phase uniform  waits 0-50 ms")
    for r in (2, 5, 8):
        row = [coverage(r, n, r, "none")]
        row += [coverage(r, n, r, lock) for lock in ("locked", "uniform", "waits")]
        print(f"{r:6d}  " + "  ".join(f"{c:13.1%}" for c in row))
    print("\nthe waits 0-50 ms against longer periods (blocks of half a period), 8 rounds")
    print("period   locked (today)  waits 0-50 ms  phase uniform")
    for period in (0.05, 0.1, 0.2, 0.5, 1.0, 3.0):
        row = [coverage(8, n, 8, lock, period_s=period) for lock in ("locked", "waits", "uniform")]
        print(f"{period:5.2f} s  " + "  ".join(f"{c:13.1%}" for c in row))
    print("\na speedup that depends on the seed (sd tau between seeds)")
    print("rounds  tau    one seed a run (today)  a seed per round")
    for r in (2, 5, 8):
        for tau in (0.01, 0.03, 0.05):
            today = coverage(r, n, r, tau=tau, per_round_seed=False)
            now = coverage(r, n, r, tau=tau, per_round_seed=True)
            print(f"{r:6d}  {tau:4.2f}  {today:22.1%}  {now:16.1%}")


if __name__ == "__main__":
    main()
