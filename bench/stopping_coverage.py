"""Coverage through the stopping rule: simulated runs that look at their intervals where a run
with no --replicates does, stop as it would (analysis/stopping.py) and report the interval at
the plan's adjusted level, against the same rule reporting plain 95% intervals.

Each simulated round's pair of processes shares a machine state (a log shift, sd `shared`),
each process has its own log offset (sd `own`) and its median of 50 steps with 2% step noise
(sd about 0.35%). Printed per setting: coverage of the true speedup by the interval reported
at the stop, the mean rounds used, the mean half-width, and the coverage had the same stops
reported 95% intervals. tests/profiler/analysis/test_stopping_coverage.py asserts 93-97.5%.

Run: .venv/bin/python -m bench.stopping_coverage [--trials 2000] [--arms 2]   (about a minute)
[--setting TRUTH OWN SHARED]: one setting instead of the table's (bench/repeat_runs.py's runs)
"""

from __future__ import annotations

import argparse

import numpy as np

from tcprof.profiler.analysis import stats, stopping

SETTINGS = [  # (true speedup, own sd, shared sd)
    (truth, own, shared)
    for truth in (1.0, 1.05, 0.9, 0.42)
    for own, shared in ((0.01, 0.05), (0.03, 0.05), (0.05, 0.2), (0.1, 0.2))
]


def simulate(
    truth: float, own: float, shared: float, trials: int, seed: int, arms: int
) -> tuple[float, float, float, float]:
    """(coverage, mean rounds, mean half-width, coverage at 95% with the same stops)."""
    plan = stopping.make_plan(arms)
    rng = np.random.default_rng(seed)
    hits = plain_hits = used = 0
    width = 0.0
    for _ in range(trials):
        n_max = plan.max_rounds
        shift = rng.normal(0, shared, n_max)
        offsets = rng.normal(0, own, (2, n_max)) + rng.normal(0, 0.0035, (2, n_max))
        base = 4.0 * np.exp(shift + offsets[0])
        arm = 4.0 / truth * np.exp(shift + offsets[1])
        interval = None
        for n in range(1, n_max + 1):
            if not plan.balanced(n):
                continue
            b, a = [[[x]] for x in base[:n]], [[[x]] for x in arm[:n]]
            interval = stats.speedup_interval(b, a, level=plan.level)
            plain = stats.speedup_interval(b, a, level=0.95)
            if stopping.decide(plan, n, [interval]).stop:
                break
        assert interval is not None and plain is not None
        hits += interval.contains(truth)
        plain_hits += plain.contains(truth)
        used += n
        width += stopping.half_width(interval)
    return hits / trials, used / trials, width / trials, plain_hits / trials


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--arms", type=int, default=2)
    parser.add_argument(
        "--setting",
        nargs=3,
        type=float,
        action="append",
        metavar=("TRUTH", "OWN", "SHARED"),
        help="one setting instead of the table's (repeatable): e.g. a run's own measured noise",
    )
    args = parser.parse_args()
    plan = stopping.make_plan(args.arms)
    print(
        f"{args.arms} arms: looks after {', '.join(map(str, plan.looks))} rounds, intervals at "
        f"{plan.level:.2%}; {args.trials} simulated runs per setting"
    )
    print("truth  own sd  shared sd  coverage  rounds  half-width  95% at the same stops")
    for i, (truth, own, shared) in enumerate(args.setting or SETTINGS):
        cov, rounds, half, plain = simulate(truth, own, shared, args.trials, i, args.arms)
        print(
            f"{truth:5.2f}  {own:6.2f}  {shared:9.2f}  {cov:8.1%}  {rounds:6.2f}  {half:10.1%}"
            f"  {plain:6.1%}"
        )


if __name__ == "__main__":
    main()
