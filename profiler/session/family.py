"""The run's family of comparisons, counted before any row is judged: every arm (the baseline
and the A/A controls left out) at every batch size where its rounds pair with the baseline's
two or more times. Its size sets the level of each simultaneous interval (Bonferroni,
stats.simultaneous_level), so the verdict, the colour, the payback and the interval shown are
all one interval's word (docs/methodology.md, "Simultaneous intervals")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcprof.profiler.analysis import stats
from tcprof.profiler.config import controls_of
from tcprof.profiler.model.rules import FAMILY_ALPHA

if TYPE_CHECKING:
    from tcprof.profiler.session.records import SessionRecord


def family_size(session: SessionRecord) -> int:
    """The comparisons with a paired interval (analysis.comparisons.family counts the same
    rows of session.json once they are written)."""
    base_arm = session.baseline
    if base_arm is None:
        return 0
    twins = controls_of(session.config or {})
    count = 0
    for arm in session.arms:
        if arm is base_arm or arm.name in twins:
            continue
        for batch_size in session.ordered_batch_sizes(arm):
            base = base_arm.results.get(batch_size)
            if base is None:
                continue
            base_p, arm_p = base.processes(), arm.results[batch_size].processes()
            rounds = range(max([*base_p, *arm_p], default=-1) + 1)
            paired = stats.paired_rounds(
                [base_p.get(r) for r in rounds], [arm_p.get(r) for r in rounds]
            )
            count += paired >= 2
    return count


def family_level(session: SessionRecord) -> float:
    """Each interval's level: 1 - 5%/m over the run's m comparisons (95% with one)."""
    return stats.simultaneous_level(family_size(session), FAMILY_ALPHA)
