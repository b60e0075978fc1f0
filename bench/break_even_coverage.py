"""How often break-even's interval (profiler/analysis/break_even.py) covers a known truth, by
simulation: the interval a session row gets, from the same functions, on rounds whose truth is
known by construction.

Each run has R rounds. The baseline's true step is 4.0 ms and the arm's true speedup 1.25, so a
step saves 0.8 ms; the true cold compile costs 30 s, so the true break-even is 37,500 steps.
Each round's pair of processes shares a machine state (a factor 1 + N(0, `shared`) on both
arms: the baseline's step varies from round to round), each process has its own factor
1 + N(0, `own`) (the speedup varies too), and each cold compile measured its own factor
1 + N(0, `compile_sd`). Condition "every round cold": each round compiled with an empty cache,
so the cost is measured R times; "one cold round": only round 0 did (the cost's spread is
unknown and the interval leaves it out, so its noise is not covered). Coverage counts only runs
whose speedup holds (its paired-t interval excludes 1.0, as the session's verdict asks).

Run: .venv/bin/python -m bench.break_even_coverage [--trials 2000]   (a few seconds)
"""

from __future__ import annotations

import argparse

import numpy as np

from tcprof.profiler.analysis import stats
from tcprof.profiler.analysis.break_even import break_even

BASE_MS, SPEEDUP, COMPILE_S = 4.0, 1.25, 30.0
TRUTH = COMPILE_S * 1000.0 / (BASE_MS * (1 - 1 / SPEEDUP))


def coverage(
    trials: int,
    rounds: int = 6,
    shared: float = 0.05,
    own: float = 0.02,
    compile_sd: float = 0.05,
    cold_rounds: int | None = None,
    seed: int = 0,
) -> tuple[float, int, float]:
    """(coverage of TRUTH, runs whose speedup held, median relative half-width)."""
    rng = np.random.default_rng(seed)
    cold_rounds = rounds if cold_rounds is None else cold_rounds
    hits = held = 0
    widths = []
    for _ in range(trials):
        shift = 1 + rng.normal(0, shared, rounds)
        base = BASE_MS * shift * (1 + rng.normal(0, own, rounds))
        arm = BASE_MS / SPEEDUP * shift * (1 + rng.normal(0, own, rounds))
        costs = COMPILE_S * (1 + rng.normal(0, compile_sd, cold_rounds))
        interval = stats.speedup_interval([[[b]] for b in base], [[[a]] for a in arm])
        if interval is None or interval.low <= 1.0:
            continue  # the speedup does not hold: no payback figure
        held += 1
        found = break_even(list(costs), list(base), list(arm))
        if found is None or found.low is None:
            continue
        high = np.inf if found.high is None else found.high
        hits += found.low <= TRUTH <= high
        widths.append((high - found.low) / 2 / TRUTH)
    return hits / max(1, held), held, float(np.median(widths)) if widths else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=2000)
    args = parser.parse_args()
    print(f"true break-even {TRUTH:,.0f} steps; {args.trials} trials per line")
    for label, kwargs in (
        ("every round cold, 6 rounds", {}),
        ("every round cold, 3 rounds", {"rounds": 3}),
        ("every round cold, 10 rounds, shared 10%", {"rounds": 10, "shared": 0.10}),
        ("every round cold, compile sd 20%", {"compile_sd": 0.20}),
        ("one cold round, compile sd 0", {"cold_rounds": 1, "compile_sd": 0.0}),
        ("one cold round, compile sd 5%", {"cold_rounds": 1}),
        ("one cold round, compile sd 20%", {"cold_rounds": 1, "compile_sd": 0.20}),
    ):
        cov, held, width = coverage(args.trials, **kwargs)
        print(f"{label:45s} coverage {cov:6.1%}  held {held:5d}  median half-width {width:.1%}")


if __name__ == "__main__":
    main()
