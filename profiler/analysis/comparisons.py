"""How many comparisons a run made, and which of its differences hold for the run as a whole.

Each compiled arm x batch size gets its own 95% interval and verdict; a run with six of them
has a much better than 5% chance that one shows a difference that is noise. So the verdict
states the family's size, and Holm's step-down adjustment (valid under any dependence between
the tests, never less powerful than Bonferroni) says which differences hold at a family-wise
5%. A/A control rows are checks of the harness, not comparisons, and are left out, as are rows
from one round (they have no interval). Pure functions over session.json's dicts.
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


def apply_comparisons(arms: list[dict[str, Any]], baseline: str | None) -> dict[str, Any]:
    """Marks each compared row's `holds_after_adjustment` and returns session.json's
    `comparisons`: count, tested (with a p-value), differences (verdict faster or slower),
    hold (of those, the ones Holm keeps)."""
    rows = family(arms, baseline)
    p_values = [r.get("speedup_p") if isinstance(r.get("speedup_p"), float) else None for r in rows]
    rejected = stats.holm(p_values, FAMILY_ALPHA)
    differences = hold = 0
    for row, reject in zip(rows, rejected, strict=True):
        differs = row.get("verdict") in ("faster", "slower")
        differences += differs
        row["holds_after_adjustment"] = None if reject is None else bool(reject and differs)
        hold += bool(row["holds_after_adjustment"])
    return {
        "count": len(rows),
        "tested": sum(p is not None for p in p_values),
        "level": LEVEL,
        "adjustment": "holm",
        "family_alpha": FAMILY_ALPHA,
        "differences": differences,
        "hold": hold,
    }


def comparisons_text(summary: dict[str, Any] | None) -> str | None:
    """'6 comparisons, each a 95% interval; 4 differences, 3 hold after Holm's adjustment
    (family-wise 5%)'. None for a session saved without it or with nothing compared."""
    if not summary or not summary.get("count"):
        return None
    count, tested = int(summary["count"]), int(summary.get("tested") or 0)
    level = units.percent(float(summary.get("level") or LEVEL))
    alpha = units.percent(float(summary.get("family_alpha") or FAMILY_ALPHA))
    head = (
        f"{count} comparison{'s' if count != 1 else ''}, each a {level} interval"
        if count > 1
        else f"1 comparison, a {level} interval"
    )
    differences = int(summary.get("differences") or 0)
    if not tested:
        return f"{head}; not adjusted for their number (one round: no p-values)"
    if count == 1:
        return head
    return (
        f"{head}; {differences} difference{'s' if differences != 1 else ''}, "
        f"{int(summary.get('hold') or 0)} hold after Holm's adjustment (family-wise {alpha})"
    )
