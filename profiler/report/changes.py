"""The changes between two saved sessions, arm by arm and batch size by batch size, each with
its 95% interval (report/compare.py's table, warnings and verdict are made from them): the
step time from both sessions' process medians (Welch's t on their mean logs), the speedup from
the two sessions' paired mean log speedups and their combined standard error (two sessions
share no rounds), compile time and training memory before and after. One round has no interval,
and nothing is judged from it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tcprof.profiler.analysis import stats
from tcprof.profiler.model.figures import Interval
from tcprof.profiler.model.row import Row, Speedup
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.cells import training_mb
from tcprof.profiler.session.records import METHOD_SCHEMA

MEMORY_NOISE = 0.02  # memory has no interval: a change under 2% is called unchanged
# A change counts only where its whole 95% interval lies beyond this margin: two sittings of the
# same code on one machine differ by more than either's interval (the between-run spread of a
# speedup measured 3.2% sd, docs/benchmarks.md), and a gate that fails on that fails at random.
DRIFT_MARGIN = 0.05
BETTER, WORSE, UNCHANGED, NA = "better", "worse", "unchanged", "n/a"

Bounds = tuple[float, float]  # an interval of a change, both ends finite


@dataclass(frozen=True)
class ComparedRow:
    """One arm at one batch size before and after. Directions are better, worse, unchanged or
    n/a; the step-time change (+0.05: 5% slower) has a 95% interval from both sessions' process
    medians, the speedup's change (+0.10: a 10% higher speedup) one from the two sessions'
    paired log speedups and their combined standard error. A session of one round has no
    interval: the intervals are None and the directions n/a. `partial_*`: '12/50' where that
    side's row was cut short."""

    arm: str
    batch_size: int
    median_ms_before: float | None
    median_ms_after: float | None
    time_change: float | None
    time_change_ci: Interval | None
    time_direction: str
    speedup_before: float | None
    speedup_after: float | None
    speedup_ci_before: Interval | None
    speedup_ci_after: Interval | None
    speedup_change: float | None
    speedup_change_ci: Interval | None
    speedup_direction: str
    compile_cold_before: float | None
    compile_cold_after: float | None
    compile_warm_before: float | None
    compile_warm_after: float | None
    peak_mb_before: float | None
    peak_mb_after: float | None
    memory_change: float | None
    memory_direction: str
    partial_before: str | None
    partial_after: str | None


def method_note(before: SessionModel, after: SessionModel) -> str | None:
    """Sessions measured by different methods (schema versions) compare step times only."""
    first = before.schema_version or 1
    second = after.schema_version or 1
    if min(first, METHOD_SCHEMA) == min(second, METHOD_SCHEMA):
        return None
    return (
        f"the sessions were measured by different methods (session schema {first} and "
        f"{second}): memory is not compared (peak RSS then, training memory now), and speedup "
        "intervals differ in meaning"
    )


# ---- changes with intervals ------------------------------------------------------------------


def _positive(values: Sequence[float | None]) -> list[float]:
    return [float(v) for v in values if isinstance(v, (int, float)) and v > 0]


def _change(
    before: tuple[float, float, int] | None, after: tuple[float, float, int] | None
) -> Bounds | None:
    """after / before - 1 as a 95% interval, from two (log mean, standard error, n)."""
    if before is None or after is None:
        return None
    _d, low, high = stats.difference_interval(before, after)
    return math.expm1(low), math.expm1(high)


def time_change(before: Row, after: Row) -> tuple[float, Bounds | None]:
    """The change in step time, after / before - 1, and its 95% interval: the difference of
    the two sessions' mean log process medians (one process per round), its standard error
    the two sessions' combined (they share no rounds), a Welch t interval. With a single round
    on either side there is no interval (one process knows nothing of process variation)."""
    pb, pa = _positive(before.process_medians_ms), _positive(after.process_medians_ms)
    if not pb or not pa:  # a row saved without them: its median stands for its one process
        pb = pb or _positive([before.median_ms])
        pa = pa or _positive([after.median_ms])
    centre = math.exp(_mean_log(pa) - _mean_log(pb)) - 1.0
    return centre, _change(stats.log_mean_se(pb), stats.log_mean_se(pa))


def _mean_log(values: list[float]) -> float:
    return sum(math.log(v) for v in values) / len(values)


def time_direction(interval: Bounds | None, margin: float = 0.0) -> str:
    """Slower steps are worse; changed only when the whole interval lies beyond `margin`."""
    if interval is None:
        return NA
    if interval[0] > margin:
        return WORSE  # slower steps
    if interval[1] < -margin:
        return BETTER
    return UNCHANGED


def log_speedup(row: Row, baseline: Row | None) -> tuple[float, float, int] | None:
    """(mean log speedup, its standard error, rounds) of one session's row: the paired rounds'
    log ratios, as the speedup's own interval has them; None for one round. Rows saved before
    the standard error was stored pair the process medians by round."""
    speedup = row.speedup
    if speedup is not None and speedup.value > 0 and speedup.se_log is not None:
        n = speedup.rounds
        return (math.log(speedup.value), speedup.se_log, n) if n is not None and n >= 2 else None
    base = baseline.process_medians_ms if baseline is not None else ()
    arm = row.process_medians_ms
    if row is baseline or len(base) != len(arm):
        return None
    ratios = [b / a for b, a in zip(base, arm, strict=True) if b > 0 and a > 0]
    return stats.log_mean_se(ratios)


def speedup_change(
    before: tuple[float, float, int] | None, after: tuple[float, float, int] | None
) -> tuple[float | None, Bounds | None]:
    """after's speedup / before's - 1, and its 95% interval: the difference of the two paired
    mean log speedups with their combined standard error (sessions share no rounds)."""
    if before is None or after is None:
        return None, None
    return math.expm1(after[0] - before[0]), _change(before, after)


def speedup_direction(interval: Bounds | None, margin: float = 0.0) -> str:
    """A higher speedup is better; changed only when the whole interval lies beyond `margin`
    (0: when it excludes no change)."""
    if interval is None:
        return NA
    if interval[0] > margin:
        return BETTER
    if interval[1] < -margin:
        return WORSE
    return UNCHANGED


def memory_direction(before: float | None, after: float | None) -> str:
    if not before or not after:
        return NA
    change = after / before - 1.0
    if abs(change) <= MEMORY_NOISE:
        return UNCHANGED
    return BETTER if change < 0 else WORSE


def _ratio(before: float | None, after: float | None) -> float | None:
    return after / before - 1.0 if before and after else None


def _bounds(pair: Bounds | None) -> Interval | None:
    return Interval(pair[0], pair[1]) if pair is not None else None


def compare_row(
    arm: str,
    before: Row,
    after: Row,
    same_method: bool,
    baselines: tuple[Row | None, Row | None] = (None, None),
    margin: float = DRIFT_MARGIN,
) -> ComparedRow:
    """One arm at one batch size, before and after (`baselines`: each session's baseline row
    at that batch size, for speedups saved without their standard error; `margin`: the change
    a direction needs beyond its interval, DRIFT_MARGIN)."""
    change, interval = None, None
    if before.median_ms and after.median_ms:
        change, interval = time_change(before, after)
    s_change, s_interval = speedup_change(
        log_speedup(before, baselines[0]), log_speedup(after, baselines[1])
    )
    b_mem = training_mb(before) if same_method else None
    a_mem = training_mb(after) if same_method else None
    return ComparedRow(
        arm=arm,
        batch_size=before.batch_size,
        median_ms_before=before.median_ms,
        median_ms_after=after.median_ms,
        time_change=change,
        time_change_ci=_bounds(interval),
        time_direction=time_direction(interval, margin),
        speedup_before=_value(before.speedup),
        speedup_after=_value(after.speedup),
        speedup_ci_before=_interval(before.speedup),
        speedup_ci_after=_interval(after.speedup),
        speedup_change=s_change if same_method else None,
        speedup_change_ci=_bounds(s_interval) if same_method else None,
        speedup_direction=speedup_direction(s_interval, margin) if same_method else NA,
        compile_cold_before=_cold(before),
        compile_cold_after=_cold(after),
        compile_warm_before=before.compile.warm_s if before.compile else None,
        compile_warm_after=after.compile.warm_s if after.compile else None,
        peak_mb_before=b_mem,
        peak_mb_after=a_mem,
        memory_change=_ratio(b_mem, a_mem),
        memory_direction=memory_direction(b_mem, a_mem),
        partial_before=_fraction(before) if before.partial else None,
        partial_after=_fraction(after) if after.partial else None,
    )


def _value(speedup: Speedup | None) -> float | None:
    return speedup.value if speedup is not None else None


def _interval(speedup: Speedup | None) -> Interval | None:
    """The row's 95% speedup interval (None with one round, whatever an older session kept)."""
    return speedup.interval if speedup is not None else None


def _fraction(row: Row) -> str:
    """'12/50': the steps the cut-short process measured, of those asked of each process."""
    return f"{row.steps_measured or 0}/{row.steps_planned or '?'}"


def _cold(row: Row) -> float | None:
    """The cold compile (a session of schema 1 has one figure, compile_s)."""
    cost = row.compile
    if cost is None:
        return None
    return cost.first_s if cost.cold_s is None else cost.cold_s


def compare_sessions(
    before: SessionModel, after: SessionModel, margin: float = DRIFT_MARGIN
) -> list[ComparedRow]:
    """Every arm (by label) and batch size the two sessions share, in before's order."""
    rows = []
    same_method = method_note(before, after) is None
    after_arms = {a.name: a for a in after.arms}
    base_b, base_a = _baseline_rows(before), _baseline_rows(after)
    for arm in before.arms:
        other = after_arms.get(arm.name)
        if other is None:
            continue
        other_rows = {r.batch_size: r for r in other.rows}
        for r in arm.rows:
            o = other_rows.get(r.batch_size)
            if o is not None:
                pair = (base_b.get(r.batch_size), base_a.get(r.batch_size))
                rows.append(compare_row(arm.name, r, o, same_method, pair, margin))
    return rows


def _baseline_rows(session: SessionModel) -> dict[int, Row]:
    return {r.batch_size: r for a in session.arms if a.name == session.baseline for r in a.rows}
