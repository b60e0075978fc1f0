"""How many comparisons a run made, and which of its differences hold for the run as a whole.

Each compiled arm x batch size is one comparison; a run with six of them has a much better
than 5% chance that one shows a difference that is noise. So every comparison's interval is a
simultaneous one: Bonferroni's, each at 1 - 5%/m over the run's m comparisons (valid under any
dependence between them), and the verdict is "faster" or "slower" exactly where that interval
excludes 1. The interval shown, the verdict, its colour and the payback are then one
interval's word; the family-wise level is stated once beside the verdict. A/A control rows are
checks of the harness, not comparisons, and are left out, as are rows from one round (they have
no interval). Sessions saved before simultaneous intervals hold each 95% interval and a Holm
adjustment of their p-values (`holds_after_adjustment`); they are read as they were saved.
Pure functions over session.json's dicts.
"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.analysis import stats
from tcprof.profiler.model.rules import BONFERRONI, FAMILY_ALPHA, LEVEL


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
