"""An arm's figures against the baseline at one batch size: the speedup, its interval and
verdict (simultaneous over the run's comparisons, within the flagged A/A controls' band), the
memory ratios, and the break-even per cache state (docs/methodology.md explains each)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcprof.profiler.analysis import stats
from tcprof.profiler.analysis.break_even import break_even
from tcprof.profiler.config import controls_of
from tcprof.profiler.session.controls import aa_figures, control_intervals
from tcprof.profiler.session.family import family_level
from tcprof.profiler.session.speedup import speedup_interval

if TYPE_CHECKING:
    from tcprof.profiler.session.records import ArmRecord, BatchResult, SessionRecord
    from tcprof.profiler.session.result_row import ResultRow


def compare_with_baseline(
    session: SessionRecord, arm: ArmRecord, res: BatchResult, row: ResultRow
) -> None:
    """Fill the row's figures against the baseline's row at its batch size (none for the
    baseline itself, or where the baseline has no such row)."""
    base_arm = session.baseline
    if base_arm is None or arm is base_arm:
        return
    base = base_arm.results.get(res.batch_size)
    if base is None:
        return
    twins = controls_of(session.config or {})
    if arm.name in twins:
        aa_figures(session, arm, twins[arm.name], row)
    interval = speedup_interval(session, base, res)
    if interval:
        row.speedup, row.speedup_method = interval.speedup, interval.method
        row.speedup_p, row.speedup_se_log = interval.p_value, interval.se_log
        row.speedup_rounds = interval.processes
        row.interval_covers_processes = interval.covers_process_variation
        if interval.covers_process_variation:
            row.speedup_ci = [interval.low, interval.high]
            controls = [] if arm.name in twins else control_intervals(session, arm, res.batch_size)
            if arm.name in twins:  # a control is judged by equivalence (control_family)
                row.verdict = _verdict(interval, controls)
            else:
                row.interval_level = family_level(session)
                joint = stats.at_level(interval, row.interval_level)
                row.speedup_ci_simultaneous = [joint.low, joint.high]
                row.verdict = _verdict(joint, controls)
        else:  # one round: no interval, so neither faster nor slower
            row.speedup_ci_one_process = [interval.low, interval.high]
            row.verdict = stats.NO_INTERVAL
    base_peak = base.done.get("steady_peak_mb")
    arm_peak = res.done.get("steady_peak_mb")
    if base_peak and arm_peak:
        row.memory_ratio = base_peak / arm_peak
    base_rss, arm_rss = base.done.get("peak_rss_mb"), res.done.get("peak_rss_mb")
    if base_rss and arm_rss:
        row.rss_ratio = base_rss / arm_rss
    _break_even(base, res, row)


def _break_even(base: BatchResult, res: BatchResult, row: ResultRow) -> None:
    """Break-even per cache state with Fieller's interval over the rounds that compiled in
    that state and the paired rounds' saving per step (analysis/break_even.py). A figure only
    where the speedup holds (verdict faster, from the simultaneous interval) and at its level;
    slower never pays back; within noise or one round: none (the views say which)."""
    if row.verdict not in ("faster", "slower"):
        return
    base_p, arm_p = base.processes(), res.processes()
    paired = [r for r in sorted(arm_p) if r in base_p]
    base_ms = [stats.process_median(base_p[r]) for r in paired]
    arm_ms = [stats.process_median(arm_p[r]) for r in paired]
    pairs = [(b, a) for b, a in zip(base_ms, arm_ms, strict=True) if b and a]
    rounds = row.compile_rounds or {}
    first_mode = "cold" if rounds.get("cold") else next(iter(rounds), None)
    for mode, point, ci in (
        ("cold", "break_even_cold_steps", "break_even_cold_ci"),
        ("warm", "break_even_warm_steps", "break_even_warm_ci"),
        (first_mode, "break_even_steps", "break_even_ci"),
    ):
        costs = [cost for _, cost in rounds.get(mode or "", [])]
        if mode != "warm":  # the first step's own extra too (measured in round 0)
            costs = [c + (row.first_step_extra_s or 0.0) for c in costs]
        if row.verdict == "slower" and costs:
            setattr(row, point, None)  # never pays back
            continue
        found = break_even(
            costs, [b for b, _ in pairs], [a for _, a in pairs], row.interval_level or 0.95
        )
        if found is None:
            continue
        setattr(row, point, found.steps)
        if found.steps is not None:
            setattr(row, ci, [found.low, found.high])


def _verdict(interval: stats.SpeedupInterval, controls: list[stats.SpeedupInterval]) -> str:
    """Within noise when the interval contains 1.0 or lies in any flagged control's band
    (`controls` holds only flagged ones: controls.control_intervals)."""
    verdicts = {stats.verdict(interval, c) for c in controls} or {stats.verdict(interval)}
    return "no_difference" if "no_difference" in verdicts else verdicts.pop()
