"""How often the table colours a speedup as a win or a loss when there is none: the tone
before and after it followed Holm's family-wise adjustment, on simulated runs whose truths are
fixed by construction (no machine noise).

A simulated run compares `--rows` arm x batch-size rows with the baseline, six rounds each,
through the project's own code: `stats.speedup_interval` (paired rounds: a shared log shift
per round, sd 0.1, each process's own sd 0.04, five blocks of ten steps), `stats.verdict`,
`comparisons.apply_comparisons` (Holm at 5%) and `verdict.speedup_tone`. "before" is the tone
from the interval alone (as until this change): green or red whenever the interval excludes
1.0. Under the null (every truth 1.00) the figure is the family-wise rate of a run with at least
one falsely coloured row (Holm's promise: at most 5%); with one row's truth 1.30, how often that
row is still coloured (what the adjustment costs in power).

Run: .venv/bin/python -m bench.tone_false_colour [--trials 2000] [--rows 6]   (seconds)
"""

from __future__ import annotations

import argparse

import numpy as np

from tcprof.profiler.analysis import stats
from tcprof.profiler.analysis.verdict import NEUTRAL, speedup_tone
from tcprof.profiler.model.row import Row
from tcprof.profiler.session.family import apply_comparisons

ROUNDS = 6


def row(truth: float, rng: np.random.Generator) -> dict:
    shift = rng.normal(0, 0.1, ROUNDS)
    own = rng.normal(0, 0.04, (2, ROUNDS))
    steps = np.exp(rng.normal(0, 0.02, (2, ROUNDS, 5, 10)))
    base = steps[0] * (4.0 * np.exp(shift + own[0]))[:, None, None]
    arm = steps[1] * (4.0 / truth * np.exp(shift + own[1]))[:, None, None]
    interval = stats.speedup_interval(list(base), list(arm))
    assert interval is not None
    return {
        "speedup_ci": [interval.low, interval.high],
        "speedup_p": interval.p_value,
        "verdict": stats.verdict(interval),
    }


def before_tone(r: dict) -> str:
    low, high = r["speedup_ci"]
    return "good" if low > 1.0 else "bad" if high < 1.0 else NEUTRAL


def now_tone(r: dict) -> str:
    """The shared rule, on the typed row a session's reader holds."""
    low, high = r["speedup_ci"]
    return speedup_tone(
        Row.of("arm", {"batch_size": 8, "speedup": (low * high) ** 0.5, **r}, False)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=6)
    args = parser.parse_args()
    rng = np.random.default_rng(19)
    for effect in (None, 1.30):
        runs_coloured = {"before": 0, "now": 0}
        effect_coloured = {"before": 0, "now": 0}
        for _ in range(args.trials):
            truths = [1.0] * args.rows
            if effect is not None:
                truths[0] = effect
            rows = [row(t, rng) for t in truths]
            apply_comparisons([{"name": "eager"}, {"name": "arm", "results": rows}], "eager")
            nulls = [r for r, t in zip(rows, truths, strict=True) if t == 1.0]
            runs_coloured["before"] += any(before_tone(r) != NEUTRAL for r in nulls)
            runs_coloured["now"] += any(now_tone(r) != NEUTRAL for r in nulls)
            if effect is not None:
                effect_coloured["before"] += before_tone(rows[0]) == "good"
                effect_coloured["now"] += now_tone(rows[0]) == "good"
        label = "every truth 1.00" if effect is None else f"row 1's truth {effect:.2f}"
        print(
            f"{label}, {args.rows} rows, {args.trials} runs: runs with a true-1.00 row coloured "
            f"before {runs_coloured['before'] / args.trials:.1%}, now "
            f"{runs_coloured['now'] / args.trials:.1%}"
            + (
                ""
                if effect is None
                else f"; the real difference coloured before "
                f"{effect_coloured['before'] / args.trials:.1%}, now "
                f"{effect_coloured['now'] / args.trials:.1%}"
            )
        )


if __name__ == "__main__":
    main()
