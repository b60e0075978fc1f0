"""When a run with no fixed number of rounds stops, and the level of the interval it reports.

A run stops only where the arms' order is balanced (a multiple of the Williams period) and
after at least MIN_ROUNDS rounds. It looks at its intervals twice: at the first such point
(2 arms: 4 rounds; 3: 6; 4: 4; 5: 10) and at the last planned round (by default 6, 12, 8, 20:
the fixed-rounds default, or one period after the first look where that is the first look). At the first look it stops when every comparison is settled (settled(),
and its interval excludes 1.0 or lies inside the equivalence margin) or every interval's
half-width is within the precision target; at the last it stops whatever it sees. Between the
looks it stops at a balanced point only when the time budget would run out before the next.

Looking twice and stopping on what is seen inflates the error of a 95% interval. Both looks'
intervals are therefore at one adjusted level (Pocock's boundary over the two planned looks):
under no difference, the chance that either look's interval excludes 1.0 is ALPHA, so the
interval reported at the stop excludes the truth at most that often, through the rule. Pocock
rather than a front-loaded spending or O'Brien-Fleming: a run that settles at its first look
(the usual case) and one that goes to the last both report about a 97% interval; a spending
rule that keeps the first look near 95% must report about 99% at the last, and O'Brien-Fleming
the reverse, both covering more than they promise where most runs stop. A confidence sequence
would widen every look for nothing. The level comes from a seeded simulation of paired t
statistics at the two looks (exact for normal round-to-round noise, small degrees of freedom
included), computed once per plan. docs/methodology.md, "Stopping"; the coverage through the
rule is tests/profiler/analysis/test_stopping_coverage.py and bench/stopping_coverage.py.

Pure functions: the round loop that calls `decide` is run/stopping_check.py's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from tcprof.profiler.analysis.stats import EQUIVALENCE_MARGIN, SpeedupInterval
from tcprof.profiler.config import (
    DEFAULT_PRECISION,
    STOP_MIN_ROUNDS,
    arms_of,
    balanced_rounds,
    williams_period,
)
from tcprof.profiler.model.stopping import Stopping
from tcprof.profiler.protocol import units

MIN_ROUNDS = STOP_MIN_ROUNDS  # a run never stops before this many rounds (and only where balanced)
ALPHA = 0.055  # spent over both looks: coverage 94.5% under no difference, about 97% far from it
_PATHS = 200_000  # simulated runs behind the level (seeded: the same every time)

SETTLED, PRECISION, BUDGET, MAX_ROUNDS = "settled", "precision", "budget", "max_rounds"


def first_look(n_arms: int, min_rounds: int = MIN_ROUNDS) -> int:
    """The fewest rounds, at least min_rounds, that balance n arms' order: 4, 6, 4, 10 for
    2 to 5 arms."""
    period = williams_period(n_arms)
    return -(-min_rounds // period) * period


def looks(n_arms: int, max_rounds: int | None = None) -> tuple[int, ...]:
    """The planned looks: the first balanced point at or above MIN_ROUNDS, and max_rounds
    raised to a balanced point; one look when they coincide. By default the last is the
    fixed-rounds default (balanced_rounds: 6, 6, 8, 10 for 2 to 5 arms) or, where that is the
    first look, one period later: 4 and 6 for 2 arms, 6 and 12 for 3, 4 and 8 for 4, 10 and 20
    for 5, so a run never takes more rounds than before where the fixed default allowed a
    second look."""
    period, first = williams_period(n_arms), first_look(n_arms)
    default = max(first + period, balanced_rounds(n_arms))
    wanted = default if max_rounds is None else max_rounds
    last = max(first, -(-wanted // period) * period)
    return (first,) if last == first else (first, last)


@lru_cache(maxsize=64)
def pocock_level(planned: tuple[int, ...], alpha: float = ALPHA) -> float:
    """The one level of every look's interval such that, under no difference, some planned
    look's paired t interval excludes 1.0 with probability alpha: a seeded simulation of
    normal rounds, t with rounds - 1 degrees of freedom at each look."""
    from scipy.special import stdtr  # here: the window imports analysis, not scipy

    if len(planned) == 1:
        return 1 - alpha
    rng = np.random.default_rng(20261206)
    x = rng.standard_normal((_PATHS, planned[-1]))
    total, squares = np.cumsum(x, axis=1), np.cumsum(x * x, axis=1)
    smallest_p = np.ones(_PATHS)
    for n in planned:
        mean = total[:, n - 1] / n
        var = (squares[:, n - 1] - n * mean * mean) / (n - 1)
        t = np.abs(mean) / np.sqrt(np.maximum(var, 1e-300) / n)
        smallest_p = np.minimum(smallest_p, 2 * stdtr(n - 1, -t))
    return 1 - float(np.quantile(smallest_p, alpha))


@dataclass(frozen=True)
class StopPlan:
    """A run's stopping rule: its looks, the precision target and the time budget (None: no
    budget). Every interval of the run is at `level`."""

    looks: tuple[int, ...]
    period: int
    precision: float = DEFAULT_PRECISION
    budget_s: float | None = None

    @property
    def level(self) -> float:
        return pocock_level(self.looks)

    @property
    def max_rounds(self) -> int:
        return self.looks[-1]

    def balanced(self, rounds: int) -> bool:
        """Whether a run may stop after `rounds` rounds at all."""
        return rounds >= self.looks[0] and rounds % self.period == 0


def make_plan(
    n_arms: int,
    max_rounds: int | None = None,
    precision: float = DEFAULT_PRECISION,
    budget_s: float | None = None,
) -> StopPlan:
    return StopPlan(looks(n_arms, max_rounds), williams_period(n_arms), precision, budget_s)


def half_width(interval: SpeedupInterval) -> float:
    """An interval's half-width as a fraction of its centre: sqrt(high / low) - 1 (the
    paired t interval is symmetric on the log scale)."""
    return math.sqrt(interval.high / interval.low) - 1 if interval.low > 0 else math.inf


def decided(interval: SpeedupInterval, margin: float = EQUIVALENCE_MARGIN) -> bool:
    """Settled beyond noise: the headline's settled() rule, and the interval either excludes
    1.0 (faster or slower) or lies inside the equivalence margin (no difference, decided)."""
    if not interval.settled:
        return False
    inside = 1 / (1 + margin) <= interval.low and interval.high <= 1 + margin
    return interval.excludes_one() or inside


@dataclass(frozen=True)
class Decision:
    """After a round: stop or go on, and why (SETTLED, PRECISION, BUDGET, MAX_ROUNDS)."""

    stop: bool
    reason: str | None
    rounds: int


def decide(
    plan: StopPlan,
    rounds: int,
    intervals: Sequence[SpeedupInterval | None],
    elapsed_s: float = 0.0,
) -> Decision:
    """Whether a run stops after `rounds` rounds, given each comparison's interval at
    plan.level (None: that comparison has none) and the seconds spent so far. Off a balanced
    point it never stops; at the last look it always does; the budget stops it at a balanced
    point when one more period of rounds, at the pace so far, would overrun it."""
    if not plan.balanced(rounds):
        return Decision(False, None, rounds)
    if rounds in plan.looks:
        usable = [i for i in intervals if i is not None and i.covers_process_variation]
        complete = bool(usable) and len(usable) == len(intervals)
        if complete and all(decided(i) for i in usable):
            return Decision(True, SETTLED, rounds)
        if complete and all(half_width(i) <= plan.precision for i in usable):
            return Decision(True, PRECISION, rounds)
    if rounds >= plan.max_rounds:
        return Decision(True, MAX_ROUNDS, rounds)
    if plan.budget_s is not None and elapsed_s + plan.period * elapsed_s / rounds > plan.budget_s:
        return Decision(True, BUDGET, rounds)
    return Decision(False, None, rounds)


FIXED_LEVEL = 0.95  # --replicates N: no looks, a plain 95% interval


def level_of(config: dict[str, Any]) -> float:
    """The level of a recorded run's intervals, from its config: Pocock's over its looks where
    it stopped when settled (stop_early; replicates is then its last look; the arms of its
    rounds, not those --apply-advice added after them), else 95%."""
    if not config.get("stop_early"):
        return FIXED_LEVEL
    n_arms = len(arms_of(config)) - len(config.get("added_arms") or [])
    rounds = config.get("replicates")
    return make_plan(n_arms, rounds if isinstance(rounds, int) else None).level


def record(plan: StopPlan, found: Decision) -> dict[str, object]:
    """What session.json keeps of why the run stopped (docs/session-format.md, "stopping")."""
    return {
        "reason": found.reason,
        "rounds": found.rounds,
        "looks": list(plan.looks),
        "level": plan.level,
        "precision": plan.precision,
        "budget_s": plan.budget_s,
    }


def stop_text(stopping: Stopping | None) -> str | None:
    """Why a run stopped, in one line for the terminal, both reports and the window: "settled
    after 4 rounds", "precision ±3% reached after 4 rounds", "budget 1 min spent after 6
    rounds", "max rounds (8) reached"; None for a run of a fixed number of rounds."""
    if stopping is None or not stopping.reason:
        return None
    rounds, reason = stopping.rounds, stopping.reason
    after = f"after {units.count(rounds)} rounds"
    level = units.percent(stopping.level, 1)
    if reason == SETTLED:
        said = f"settled {after}"
    elif reason == PRECISION:
        precision = stopping.precision or 0.0
        target = units.percent(precision, 0 if round(precision * 100, 6).is_integer() else 1)
        said = f"precision ±{target} reached {after}"
    elif reason == BUDGET:
        said = f"budget {units.duration(stopping.budget_s)} spent {after}"
    else:
        said = f"max rounds ({units.count(rounds)}) reached"
    return f"{said} ({level} intervals, adjusted for stopping)"
