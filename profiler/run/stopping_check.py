"""The round loop's "should we stop after this round?": a run with no --replicates stops when
its answer is settled (analysis/stopping.py has the rule); a run of a fixed number of rounds
never stops early. Called by the runner after each round; it reads the session folded so far."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.analysis import stopping
from tcprof.profiler.analysis.stats import SpeedupInterval
from tcprof.profiler.config import RunConfig
from tcprof.profiler.session.records import SessionRecord
from tcprof.profiler.session.speedup import speedup_interval


class StopCheck:
    def __init__(self, config: RunConfig) -> None:
        n_arms = len(config.run_arms)
        self.plan = (
            stopping.make_plan(n_arms, config.replicates, config.precision, config.budget_s)
            if config.stop_early
            else None
        )
        self.found: stopping.Decision | None = None

    def may_be_last(self, rounds: int, planned: int) -> bool:
        """Whether the run may end after `rounds` rounds (the weights are saved there)."""
        return rounds == planned or (self.plan is not None and self.plan.balanced(rounds))

    def after_round(self, session: SessionRecord, rounds: int, elapsed_s: float) -> bool:
        """True where the run stops after `rounds` rounds (and records why)."""
        if self.plan is None:
            return False
        found = stopping.decide(self.plan, rounds, comparisons(session, self.plan.level), elapsed_s)
        if found.stop:
            self.found = found
        return found.stop

    def record(self) -> dict[str, Any] | None:
        """run_end's `stopping`: why the run stopped; None for a fixed number of rounds or a run
        that ended otherwise (cancelled, every arm failed)."""
        if self.plan is None or self.found is None:
            return None
        return stopping.record(self.plan, self.found)


def comparisons(session: SessionRecord, level: float) -> list[SpeedupInterval | None]:
    """Every arm's interval over the baseline at every batch size, at `level`; None where a
    batch size has no result on one side (the run is not settled there)."""
    base = session.baseline
    if base is None:
        return []
    out: list[SpeedupInterval | None] = []
    for arm in session.arms[1:]:
        for bs in session.batch_sizes():
            base_res, res = base.results.get(bs), arm.results.get(bs)
            if base_res is None or res is None:
                out.append(None)
            else:
                out.append(speedup_interval(session, base_res, res, level))
    return out
