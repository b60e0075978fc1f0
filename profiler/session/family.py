"""The run's family of comparisons, counted before any row is judged: every arm (the baseline
and the A/A controls left out) at every batch size where its rounds pair with the baseline's
two or more times. Its size sets the level of each simultaneous interval (Bonferroni,
stats.simultaneous_level), so the verdict, the colour, the payback and the interval shown are
all one interval's word (docs/methodology.md, "Simultaneous intervals").

Once the rows are written, the same family is counted again over session.json's rows being
built (`apply_comparisons`: the writer marks each compared row's `holds_after_adjustment` and
writes `comparisons`); sessions saved before simultaneous intervals hold each 95% interval and a
Holm adjustment of their p-values, and are read as they were saved."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tcprof.profiler.analysis import stats, stopping
from tcprof.profiler.config import controls_of
from tcprof.profiler.model.rules import BONFERRONI, FAMILY_ALPHA, LEVEL

if TYPE_CHECKING:
    from tcprof.profiler.session.records import SessionRecord


def family_size(session: SessionRecord) -> int:
    """The comparisons with a paired interval (`family` below counts the same rows of
    session.json once they are written)."""
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
    """Each interval's level: 1 - alpha/m over the run's m comparisons, alpha being 5% (95%
    with one comparison), or what a run that stopped when settled has left after spending its
    5% over its looks (analysis/stopping.py: 96.7% at [4, 6] for one comparison)."""
    run_alpha = 1.0 - stopping.level_of(session.config or {})
    return stats.simultaneous_level(family_size(session), run_alpha)


def family(arms: list[dict[str, Any]], baseline: str | None) -> list[dict[str, Any]]:
    """The rows that compare an arm with the baseline (controls and the baseline left out)."""
    return [
        row
        for arm in arms
        if arm.get("name") != baseline
        for row in arm.get("results") or []
        if row.get("verdict") not in (None, stats.NO_INTERVAL) and row.get("aa_of") is None
    ]


def apply_comparisons(
    arms: list[dict[str, Any]], baseline: str | None, run_alpha: float = FAMILY_ALPHA
) -> dict[str, Any]:
    """Marks each compared row's `holds_after_adjustment` and returns session.json's
    `comparisons`: count, tested (with an interval), differences (verdict faster or slower),
    hold (of those, the ones that hold family-wise: with simultaneous intervals, all).
    `run_alpha`: what one interval may miss before the family is split (5%; less where the run
    stopped when settled and spent its 5% over its looks: analysis/stopping.py)."""
    rows = family(arms, baseline)
    simultaneous = bool(rows) and all(isinstance(r.get("interval_level"), float) for r in rows)
    p_values = [r.get("speedup_p") if isinstance(r.get("speedup_p"), float) else None for r in rows]
    rejected = (
        [True if p is not None else None for p in p_values]  # the verdict is the test
        if simultaneous
        else stats.holm(p_values, FAMILY_ALPHA)
    )
    differences = hold = 0
    for row, reject in zip(rows, rejected, strict=True):
        differs = row.get("verdict") in ("faster", "slower")
        differences += differs
        row["holds_after_adjustment"] = None if reject is None else bool(reject and differs)
        hold += bool(row["holds_after_adjustment"])
    return {
        "count": len(rows),
        "tested": sum(p is not None for p in p_values),
        "level": stats.simultaneous_level(len(rows), run_alpha) if simultaneous else LEVEL,
        "adjustment": BONFERRONI if simultaneous else "holm",
        "family_alpha": FAMILY_ALPHA,
        "differences": differences,
        "hold": hold,
    }
