"""How often the speedup interval covers a known truth: the interval tcprof reports against the
one it reported before session schema 3, on simulated rounds, exactly (no machine noise).

Each simulated run has R rounds; each round's pair of processes shares a machine state (a log
shift, sd `shared`), each process has its own log offset (sd `own`) and five blocks of ten steps
with 2% step noise; the true speedup is 1.2. "now" is `profiler.analysis.stats.speedup_interval`
(centre and width from the paired per-round log ratios); "before" keeps the same paired t width
but centres it on median(baseline process medians) / median(arm process medians), as the code
did until schema 3. tests/profiler/analysis/test_stats.py asserts "now" at 93-97.5%.

Run: .venv/bin/python -m bench.interval_coverage [--trials 2000]   (about a minute)
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from tcprof.profiler.analysis import stats

TRUTH = 1.2


def coverage(rounds: int, shared: float, own: float, trials: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    now = before = 0
    for _ in range(trials):
        shift = rng.normal(0, shared, rounds)
        offsets = rng.normal(0, own, (2, rounds))
        steps = np.exp(rng.normal(0, 0.02, (2, rounds, 5, 10)))
        base = steps[0] * (4.0 * np.exp(shift + offsets[0]))[:, None, None]
        arm = steps[1] * (4.0 / TRUTH * np.exp(shift + offsets[1]))[:, None, None]
        interval = stats.speedup_interval(list(base), list(arm))
        assert interval is not None
        now += interval.contains(TRUTH)
        bm = np.median(base.reshape(rounds, -1), axis=1)
        am = np.median(arm.reshape(rounds, -1), axis=1)
        logs = np.log(bm / am)
        half = stats.t_quantile(rounds - 1) * logs.std(ddof=1) / math.sqrt(rounds)
        centre = math.log(np.median(bm) / np.median(am))
        before += centre - half <= math.log(TRUTH) <= centre + half
    return now / trials, before / trials


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    args = parser.parse_args()
    print(f"coverage of the truth ({TRUTH}) by the 95% interval, {args.trials} runs per setting")
    print("rounds  shared sd  own sd   now     before")
    for rounds in (2, 3, 5, 6, 7, 8, 12):
        for shared, own in ((0.05, 0.03), (0.2, 0.03), (0.2, 0.05)):
            now, before = coverage(rounds, shared, own, args.trials, seed=rounds)
            print(f"{rounds:6d}  {shared:9.2f}  {own:6.2f}   {now:6.1%}  {before:6.1%}")


if __name__ == "__main__":
    main()
