"""How often `tcprof compare`'s intervals cover a known truth: two sessions simulated with a
known change, exactly (no machine noise), judged by `profiler.report.compare` as the command
judges them.

Each session has R rounds; each round's pair of processes (baseline, arm) shares a machine state
(a log shift, sd `shared`), each process has its own log offset (sd `own`) and five blocks of
ten steps with 2% step noise. The baseline's step time is 4.0 ms in both sessions; the arm's
true speedup is 1.2 before and 1.2 x 1.1 after, so the truth is a speedup change of +10% and an
arm step-time change of 1/1.1 - 1. The speedup change's interval is the difference of the two
sessions' paired mean log speedups with their combined standard error and a Welch t reference
(the sessions share no rounds); the step-time change's the difference of the sessions' mean
log process medians, likewise. tests/profiler/report/test_compare_and_profile.py asserts the
speedup change's coverage at 91-99% on 200 runs of 6 rounds.

Run: .venv/bin/python -m bench.compare_coverage [--trials 4000]   (a few seconds)
"""

from __future__ import annotations

import argparse

import numpy as np

from tcprof.profiler.analysis import stats
from tcprof.profiler.model.row import Row
from tcprof.profiler.report import compare

BEFORE, CHANGE = 1.2, 1.1  # the true speedup before, and its true change (after / before)


def _session(
    rng: np.random.Generator, speedup: float, rounds: int, shared: float, own: float
) -> tuple[Row, Row]:
    """(baseline row, arm row) of one simulated session, as the model reads session.json's."""
    shift = rng.normal(0, shared, rounds)
    offsets = rng.normal(0, own, (2, rounds))
    steps = np.exp(rng.normal(0, 0.02, (2, rounds, 5, 10)))
    base = steps[0] * (4.0 * np.exp(shift + offsets[0]))[:, None, None]
    arm = steps[1] * (4.0 / speedup * np.exp(shift + offsets[1]))[:, None, None]
    interval = stats.speedup_interval(list(base), list(arm))
    assert interval is not None
    base_row = {
        "batch_size": 8,
        "median_ms": 4.0,
        "process_medians_ms": list(np.median(base.reshape(rounds, -1), 1)),
    }
    arm_row = {
        "batch_size": 8,
        "median_ms": float(np.median(arm)),
        "process_medians_ms": list(np.median(arm.reshape(rounds, -1), axis=1)),
        "speedup": interval.speedup,
        "speedup_se_log": interval.se_log,
        "speedup_rounds": interval.processes,
    }
    return Row.of("eager", base_row, True), Row.of("inductor", arm_row, False)


def coverage(
    trials: int, seed: int, rounds: int = 3, shared: float = 0.05, own: float = 0.03
) -> tuple[int, int]:
    """(runs whose speedup-change interval covered the truth, runs)."""
    return _coverage(trials, seed, rounds, shared, own)[0], trials


def _coverage(
    trials: int, seed: int, rounds: int, shared: float, own: float
) -> tuple[int, int, float]:
    rng = np.random.default_rng(seed)
    speedup_hits = time_hits = 0
    widths = []
    for _ in range(trials):
        b_base, b_arm = _session(rng, BEFORE, rounds, shared, own)
        a_base, a_arm = _session(rng, BEFORE * CHANGE, rounds, shared, own)
        _change, ci = compare.speedup_change(
            compare.log_speedup(b_arm, b_base), compare.log_speedup(a_arm, a_base)
        )
        assert ci is not None
        speedup_hits += ci[0] <= CHANGE - 1 <= ci[1]
        widths.append(ci[1] - ci[0])
        _t, tci = compare.time_change(b_arm, a_arm)
        assert tci is not None
        time_hits += tci[0] <= 1 / CHANGE - 1 <= tci[1]
    return speedup_hits, time_hits, float(np.median(widths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=4000)
    args = parser.parse_args()
    print("| rounds per session | shared sd | own sd | speedup change covered | step time covered "
          "| median width |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for rounds, shared, own in ((2, 0.05, 0.03), (3, 0.05, 0.03), (6, 0.05, 0.03), (6, 0.2, 0.1)):
        hits, time_hits, width = _coverage(args.trials, 7, rounds, shared, own)
        print(
            f"| {rounds} | {shared} | {own} | {hits / args.trials:.1%} | "
            f"{time_hits / args.trials:.1%} | {width * 100:.1f} points |"
        )


if __name__ == "__main__":
    main()
