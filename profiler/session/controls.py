"""The run's A/A controls: each control arm's speedup over its identical twin (truth 1.00),
judged together as one family, and the flagged ones' intervals that bound the other arms' noise
(docs/methodology.md, "The A/A control")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcprof.profiler.analysis import stats
from tcprof.profiler.config import controls_of
from tcprof.profiler.model.rules import FAMILY_ALPHA
from tcprof.profiler.session.speedup import speedup_interval

if TYPE_CHECKING:
    from tcprof.profiler.session.records import ArmRecord, SessionRecord
    from tcprof.profiler.session.result_row import ResultRow


def aa_figures(session: SessionRecord, arm: ArmRecord, twin_name: str, row: ResultRow) -> None:
    """A control's A/A figures: its speedup over its identical twin, whose truth is 1.00, and
    whether the run's controls, judged together (control_family), flag it."""
    row.aa_of = twin_name
    found = control_family(session).get((arm.name, row.batch_size))
    if found:
        interval, flagged = found
        row.aa_speedup = interval.speedup
        row.aa_ci = [interval.low, interval.high] if interval.covers_process_variation else None
        row.aa_flagged = bool(flagged)


def control_family(
    session: SessionRecord,
) -> dict[tuple[str, int], tuple[stats.SpeedupInterval, bool | None]]:
    """(control arm, batch size) -> its interval over its twin and its flag: every A/A
    interval of the run is one family (stats.control_flags: equivalence within the margin
    fails and a Holm-adjusted difference holds), so more controls and batch sizes do not
    flag a flawless harness more often."""
    keys, intervals = [], []
    for name, twin_name in controls_of(session.config or {}).items():
        control = next((a for a in session.arms if a.name == name), None)
        twin = next((a for a in session.arms if a.name == twin_name), None)
        if control is None or twin is None:
            continue
        for batch_size in session.ordered_batch_sizes(control):
            twin_res, res = twin.results.get(batch_size), control.results.get(batch_size)
            interval = speedup_interval(session, twin_res, res) if twin_res and res else None
            if interval:
                keys.append((name, batch_size))
                intervals.append(interval)
    flags = stats.control_flags(intervals, FAMILY_ALPHA)
    return {k: (i, f) for k, i, f in zip(keys, intervals, flags, strict=True)}


def control_intervals(
    session: SessionRecord, arm: ArmRecord, batch_size: int
) -> list[stats.SpeedupInterval]:
    """The flagged A/A intervals that bound an arm's noise: the eager control's for every arm,
    the compiled control's for compiled arms (each against its own twin). An unflagged control
    is no known bias, so it gives no band."""
    out = []
    family = control_family(session)
    for name, twin_name in controls_of(session.config or {}).items():
        twin = next((a for a in session.arms if a.name == twin_name), None)
        if twin is None or name == arm.name:
            continue
        if twin.backend != "eager" and arm.backend == "eager":
            continue  # a compiled twin's bias says nothing about an eager arm
        found = family.get((name, batch_size))
        if found and found[1]:
            out.append(found[0])
    return out
