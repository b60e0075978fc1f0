"""The speedup of one arm over another at one batch size: their processes paired by round,
the paired interval at the run's level (analysis/stats.py). The rows' figures against the baseline,
the A/A controls and the check that stops a run when it is settled all ask it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tcprof.profiler.analysis import stats, stopping

if TYPE_CHECKING:
    from tcprof.profiler.session.records import BatchResult, SessionRecord


def speedup_interval(
    session: SessionRecord, base: BatchResult, res: BatchResult, level: float | None = None
) -> stats.SpeedupInterval | None:
    """The arm's speedup over the baseline, its processes paired with the baseline's by round;
    at the run's level (95%, or adjusted for a run that stops when settled) unless given."""
    base_p, arm_p = base.processes(), res.processes()
    rounds = range(max([*base_p, *arm_p], default=-1) + 1)
    rng = np.random.default_rng(int(session.config.get("seed", 0)) + res.batch_size)
    if level is None:
        level = stopping.level_of(session.config or {})
    return stats.speedup_interval(
        [base_p.get(r) for r in rounds], [arm_p.get(r) for r in rounds], rng=rng, level=level
    )
