"""How often `tcprof history` flags a change in a series where nothing changed, and how often it
catches a real one: series of sessions simulated with a known answer, passed through the very
rule the history uses (profiler/report/history.py `build_history`, index entries as the sessions
folder's index holds them).

Each session's mean log speedup is the series' true value, plus a between-session offset
(N(0, tau²): the machine's state from one session to the next, which no session's own interval
sees), plus its own measurement error (N(0, se²), se the within-session standard error that its
interval is made from and the rule's first half reads). A no-change series keeps one true value;
a step series slows the compiled arm by --step (15%) from its middle session on.

Figures: the share of no-change series with any flag (per series of N sessions), the share of
adjacent pairs flagged (per pair), and the share of step series flagged at the step's session.

Run: .venv/bin/python -m bench.history_false_flags [--series 2000] [--sessions 5 10 20]
"""

from __future__ import annotations

import argparse
import math
import random
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.report.history import build_history

BASE = "eager"
ARM = "inductor"
ROUNDS = 5
SE = 0.01  # within-session standard error of the mean log speedup: ~2% per round over 5 rounds


@dataclass
class Rates:
    series: int
    pairs: int
    flagged_series: int
    flagged_pairs: int
    caught: int  # step series flagged at the step's session (and nowhere else)

    def per_series(self) -> float:
        return self.flagged_series / self.series if self.series else 0.0

    def per_pair(self) -> float:
        return self.flagged_pairs / self.pairs if self.pairs else 0.0

    def catch_rate(self) -> float:
        return self.caught / self.series if self.series else 0.0


def entry(i: int, log_speedup: float, se: float) -> dict[str, Any]:
    """A session as the index keeps it: one compiled arm over eager at one batch size."""
    row = {
        "batch_size": 8,
        "speedup": math.exp(log_speedup),
        "speedup_se_log": se,
        "speedup_rounds": ROUNDS,
    }
    return {
        "folder": f"run-{i:04d}",
        "series": "sim",
        "started_at": float(i),
        "short": f"c{i:06d}",
        "baseline": BASE,
        "arms": [
            {"name": BASE, "results": [{"batch_size": 8, "median_ms": 10.0}]},
            {"name": ARM, "results": [row]},
        ],
    }


def series(
    rng: random.Random, sessions: int, tau: float, se: float, step: float = 0.0
) -> list[dict[str, Any]]:
    """One simulated series; with `step`, the speedup falls by that share from the middle on."""
    truth = math.log(1.25)
    out = []
    for i in range(sessions):
        true = truth + (math.log1p(-step) if step and i >= sessions // 2 else 0.0)
        out.append(entry(i, true + rng.gauss(0.0, tau) + rng.gauss(0.0, se), se))
    return out


def flagged_at(entries: list[dict[str, Any]]) -> list[int]:
    """The indices of the sessions where the history's rule names a change."""
    history = build_history(entries, "sim")
    return [history.entries.index(c.after) for c in history.changes]


def measure(
    count: int, sessions: int, tau: float, se: float = SE, step: float = 0.15, seed: int = 0
) -> tuple[Rates, Rates]:
    """(no-change rates, step rates) over `count` series of each kind."""
    rng = random.Random(seed)
    null = Rates(count, count * (sessions - 1), 0, 0, 0)
    for _ in range(count):
        flags = flagged_at(series(rng, sessions, tau, se))
        null.flagged_series += bool(flags)
        null.flagged_pairs += len(flags)
    stepped = Rates(count, count * (sessions - 1), 0, 0, 0)
    for _ in range(count):
        flags = flagged_at(series(rng, sessions, tau, se, step))
        stepped.flagged_series += bool(flags)
        stepped.flagged_pairs += len(flags)
        stepped.caught += sessions // 2 in flags
    return null, stepped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=2000)
    parser.add_argument("--sessions", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--tau", type=float, nargs="+", default=[0.0, 0.01, 0.02])
    parser.add_argument("--step", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        f"{args.series} series each; within-session se {SE} (log); a real step of "
        f"{args.step:.0%} at the middle session"
    )
    print("sessions  tau    false flags/series  false flags/pair  step caught at its session")
    for n in args.sessions:
        for tau in args.tau:
            null, stepped = measure(args.series, n, tau, step=args.step, seed=args.seed)
            print(
                f"{n:8d}  {tau:.3f}  {null.per_series():18.1%}  {null.per_pair():16.2%}  "
                f"{stepped.catch_rate():.1%}"
            )


if __name__ == "__main__":
    main()
