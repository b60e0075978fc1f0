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
from tcprof.profiler.protocol import units

FAMILY_ALPHA = 0.05
LEVEL = 0.95  # each interval's own level


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


BONFERRONI = "bonferroni"


def simultaneous(summary: dict[str, Any] | None) -> bool:
    """The session's intervals are simultaneous ones (saved since they were)."""
    return bool(summary) and (summary or {}).get("adjustment") == BONFERRONI


def comparisons_text(summary: dict[str, Any] | None) -> str | None:
    """'3 comparisons, simultaneous 95% intervals (Bonferroni: each at 98.3%); 2 differences';
    a session saved before: '6 comparisons, each a 95% interval; 4 differences, 3 hold after
    Holm's adjustment (family-wise 5%)'. None for a session without it or with nothing compared."""
    if not summary or not summary.get("count"):
        return None
    count, tested = int(summary["count"]), int(summary.get("tested") or 0)
    level = units.percent(float(summary.get("level") or LEVEL))
    alpha = float(summary.get("family_alpha") or FAMILY_ALPHA)
    plural = "s" if count != 1 else ""
    differences = int(summary.get("differences") or 0)
    if simultaneous(summary) and count > 1:
        return (
            f"{count} comparisons, simultaneous {units.percent(1 - alpha)} intervals "
            f"(Bonferroni: each at {units.percent(float(summary['level']), 1)}); "
            f"{differences} difference{'s' if differences != 1 else ''} beyond them"
        )
    head = (
        f"{count} comparison{plural}, each a {level} interval"
        if count > 1
        else f"1 comparison, a {level} interval"
    )
    if not tested:
        return f"{head}; not adjusted for their number (one round: no p-values)"
    if count == 1:
        return head
    return (
        f"{head} (saved before simultaneous intervals); {differences} "
        f"difference{'s' if differences != 1 else ''}, "
        f"{int(summary.get('hold') or 0)} hold after Holm's adjustment "
        f"(family-wise {units.percent(alpha)})"
    )
