"""How often a run's simultaneous intervals cover every one of their known truths together
(family-wise coverage), against the plain 95% intervals shown before, on simulated rounds.

Each simulated run has R rounds and m compiled arms (or arm x batch size comparisons), each
compared with the same eager baseline: a round shares a machine state (a log shift, sd 5%), the
baseline's process and every arm's process have their own log noise (sd `noise`; the baseline's
shared by every comparison, so the m comparisons are correlated), and each arm has its own true
speedup. "simultaneous" is `stats.at_level(stats.speedup_interval(...), simultaneous_level(m))`,
what session.json's `speedup_ci_simultaneous` holds; "plain" is the 95% `speedup_ci`.
tests/profiler/analysis/test_simultaneous.py asserts 95-98% at three settings.

Run: .venv/bin/python -m bench.simultaneous_coverage [--trials 4000]   (about a minute)
"""

from __future__ import annotations

import argparse

import numpy as np

from tcprof.profiler.analysis import stats

SETTINGS = [(1, 4), (2, 4), (3, 4), (3, 8), (4, 6), (6, 4), (8, 6)]  # (m, rounds)


def coverage(m: int, rounds: int, noise: float, trials: int, seed: int) -> tuple[float, float]:
    """(simultaneous, plain) family-wise coverage over `trials` simulated runs."""
    rng = np.random.default_rng(seed)
    truth = np.exp(rng.normal(0, 0.1, size=m))
    level = stats.simultaneous_level(m)
    joint = plain = 0
    for _ in range(trials):
        shift = rng.normal(0, 0.05, size=rounds)
        base = 10.0 * np.exp(shift + rng.normal(0, noise, size=rounds))
        ok_joint = ok_plain = True
        for j in range(m):
            arm = 10.0 * np.exp(shift + rng.normal(0, noise, size=rounds)) / truth[j]
            found = stats.speedup_interval([[[b]] for b in base], [[[a]] for a in arm])
            assert found is not None
            wide = stats.at_level(found, level)
            ok_joint = ok_joint and wide.low <= truth[j] <= wide.high
            ok_plain = ok_plain and found.low <= truth[j] <= found.high
        joint += ok_joint
        plain += ok_plain
    return joint / trials, plain / trials


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=4000)
    parser.add_argument("--noise", type=float, default=0.03)
    args = parser.parse_args()
    print(f"{'m':>3} {'rounds':>6} {'each at':>8} {'simultaneous':>13} {'plain 95%':>10}")
    for i, (m, rounds) in enumerate(SETTINGS):
        joint, plain = coverage(m, rounds, args.noise, args.trials, seed=i)
        each = stats.simultaneous_level(m) * 100
        print(f"{m:>3} {rounds:>6} {each:>7.2f}% {joint * 100:>12.1f}% {plain * 100:>9.1f}%")


if __name__ == "__main__":
    main()
