"""What stands beside the verdict sentences (model/verdict.py): how many comparisons were made
and at what level, flagged A/A controls, an unbalanced schedule, contended blocks, and beside
each unsettled speedup what would settle it. Over the typed records, made once when the model is
built (`SessionModel.notes`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.rules import BONFERRONI, FAMILY_ALPHA, LEVEL, NOT_SETTLED
from tcprof.profiler.model.verdict import is_control, medians_note, script_words, settle_hint
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.event_text import phase_words


def simultaneous(summary: Mapping[str, Any] | None) -> bool:
    """The session's intervals are simultaneous ones (saved since they were)."""
    return bool(summary) and (summary or {}).get("adjustment") == BONFERRONI


def comparisons_text(summary: Mapping[str, Any] | None) -> str | None:
    """'3 comparisons, simultaneous 95% intervals (Bonferroni: each at 98.3%); 2 differences';
    a session saved before: '6 comparisons, each a 95% interval; 4 differences, 3 hold after
    Holm's adjustment (family-wise 5%)'. None for a session without it or with nothing compared.
    (`comparisons` is raw JSON in the model: model/raw.py.)"""
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


def control_notes(arms: Sequence[Arm]) -> list[str]:
    """A sentence per flagged A/A control row: the harness itself differs between identical
    arms, so differences below that deserve care."""
    out = []
    for arm in arms:
        for row in arm.rows:
            speedup = row.speedup
            ci = speedup.control_interval if speedup else None
            if not (speedup and speedup.control_flagged) or ci is None:
                continue
            if row.control_speedup is None or ci.low is None or ci.high is None:
                continue
            low, high = sorted((ci.low - 1.0, ci.high - 1.0), key=abs)
            out.append(
                f"the harness itself differs by {units.change(row.control_speedup - 1.0)} "
                f"[{units.percent(abs(low))}–{units.percent(abs(high))}] between identical arms "
                f"({arm.name} against {row.control_of}, bs {row.batch_size}): "
                "treat differences below that with care"
            )
    return out


def headline_notes(arms: Sequence[Arm], baseline: str | None, script: Any) -> list[str]:
    """Beside each compiled arm's unsettled speedup, what would settle it; beside any speedup,
    medians that disagree with it, explained ('inductor at bs 8: not settled: …')."""
    base_rows = {r.batch_size: r for a in arms if a.name == baseline for r in a.rows}
    out = []
    for arm in arms:
        if arm.name == baseline or is_control(arm):
            continue
        for row in arm.rows:
            if row.speedup is None or row.status in ("error", "oom"):
                continue
            phase = phase_words(row.batch_size, script)  # a script has no 'bs 1'
            where = f"{arm.name} at {phase}" if phase else arm.name
            if not row.speedup.settled:
                out.append(f"{where}: {NOT_SETTLED}: {settle_hint(row)}")
            note = medians_note(row, base_rows.get(row.batch_size))
            if note:
                out.append(f"{where}: {note}")
    return out


def contention_note(arms: Sequence[Arm], script: Any) -> str | None:
    """'eager at bs 8: 4 of 30 blocks ran while other processes kept the machine busy …'."""
    hit = [
        (arm.name, r.batch_size, r.blocks_contended, r.blocks_measured or "?")
        for arm in arms
        for r in arm.rows
        if r.blocks_contended
    ]
    if not hit:
        return None
    where = ", ".join(f"{name} at bs {bs}: {n}/{of}" for name, bs, n, of in hit[:4])
    more = f" and {len(hit) - 4} more" if len(hit) > 4 else ""
    text = (
        f"blocks contended ({where}{more}): other processes kept the machine busy while they "
        "ran, which slows steps unevenly; the intervals include them, a quieter machine gives "
        "tighter ones"
    )
    return script_words(text, script) if script else text


def machine_speed_note(arms: Sequence[Arm]) -> str | None:
    """'the machine's own speed moved during 7 of 40 blocks (a fixed product read 120-260 us
    over the run) ...': what no interval of one run can see coming, named where it happened."""
    rows = [r for arm in arms for r in arm.rows]
    moved = sum(r.blocks_unsteady for r in rows)
    readings = [r.reference_us for r in rows if r.reference_us is not None]
    if not readings:
        return None
    fastest = min(low for low, _high in readings)
    slowest = max(high for _low, high in readings)
    if not moved and slowest <= fastest * 1.3:
        return None
    blocks = sum(r.blocks_measured or 0 for r in rows)
    during = f"during {moved} of {blocks} blocks" if moved else "between blocks"
    return (
        f"the machine's own speed moved {during} (a fixed matrix product, timed before and "
        f"after each block, took {units.count(fastest)}-{units.count(slowest)} us over the "
        "run): other programs competing for the cores, a host busy elsewhere or a changing "
        "clock; the rounds sample it, so the intervals are wider than the model's own noise, "
        "and another run may land elsewhere within them"
    )


def session_notes(
    arms: Sequence[Arm],
    baseline: str | None,
    script: Any,
    comparisons: Mapping[str, Any] | None,
    schedule_note: str | None,
) -> list[str]:
    """What stands beside the verdicts: how many comparisons were made (and what Holm's
    adjustment kept), flagged controls, and an unbalanced schedule."""
    notes = [comparisons_text(comparisons), *control_notes(arms), schedule_note]
    notes.append(contention_note(arms, script))
    notes.append(machine_speed_note(arms))
    notes += headline_notes(arms, baseline, script)
    return [n for n in notes if n]
