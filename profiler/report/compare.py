"""Compare any two saved sessions (say, before and after a code change), arm by arm (matched by
label) and batch size by batch size: step time, speedup, compile time (cold and warm) and
training memory, each before and after.

"Changed" is decided from intervals, never from a fixed percentage: the step-time change has
a 95% interval from the process medians of both sessions (the difference of their mean logs,
Welch's t), and the speedup's change one from the difference of the two sessions' paired mean
log speedups with their combined standard error (two sessions share no rounds). A session of
one round has no interval, and nothing is judged from it. The newer session (by start time)
is always "after". Warnings say when the two runs measured different models or settings, or
when a session has a single replicate.

Both sessions are read as the typed model (`SessionModel`); a session.json dict enters
through `SessionModel.read`. The settings compared are named by their keys in the run's
options as saved (`config`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis import stats
from tcprof.profiler.config import loop_text
from tcprof.profiler.folders.files import EVENTS_JSONL, SESSION_JSON, read_session
from tcprof.profiler.model.figures import Interval
from tcprof.profiler.model.row import Row, Speedup
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.report.sections.table import render_table, training_mb
from tcprof.profiler.session.records import METHOD_SCHEMA

MEMORY_NOISE = 0.02  # memory has no interval: a change under 2% is called unchanged
BETTER, WORSE, UNCHANGED, NA = "better", "worse", "unchanged", "n/a"
REPLICATES = "replicates"

# Settings that change what is measured; each difference is named in a warning. The rounds
# are the ones each run measured (a run that stops when settled holds its most in config).
SETTINGS = (
    ("batch_sizes", "batch sizes"),
    ("device", "device"),
    ("warmup", "warm-up steps"),
    ("steps", "measured steps"),
    ("blocks", "blocks"),
    (REPLICATES, "replicates"),
    ("optimizer", "optimizer"),
    ("lr", "learning rate"),
    ("seed", "seed"),
    ("threads", "threads"),
    ("min_block_ms", "minimum block ms"),
)

Bounds = tuple[float, float]  # an interval of a change, both ends finite
SessionLike = SessionModel | Mapping[str, Any]  # a dict enters through SessionModel.read


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


def method_note(before: SessionLike, after: SessionLike) -> str | None:
    """Sessions measured by different methods (schema versions) compare step times only."""
    first = SessionModel.read(before).schema_version or 1
    second = SessionModel.read(after).schema_version or 1
    if min(first, METHOD_SCHEMA) == min(second, METHOD_SCHEMA):
        return None
    return (
        f"the sessions were measured by different methods (session schema {first} and "
        f"{second}): memory is not compared (peak RSS then, training memory now), and speedup "
        "intervals differ in meaning"
    )


def newest_last(a: SessionModel, b: SessionModel) -> tuple[SessionModel, SessionModel]:
    """(before, after): the session that started later is "after", whatever the order given."""
    ta, tb = _started(a), _started(b)
    return (b, a) if ta is not None and tb is not None and ta > tb else (a, b)


def _started(session: SessionModel) -> float | None:
    value = session.started_at
    return value if value is not None and math.isfinite(value) else None


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


def time_direction(interval: Bounds | None) -> str:
    if interval is None:
        return NA
    if interval[0] > 0:
        return WORSE  # slower steps
    if interval[1] < 0:
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


def speedup_direction(interval: Bounds | None) -> str:
    """A higher speedup is better; changed only when the interval excludes no change."""
    if interval is None:
        return NA
    if interval[0] > 0:
        return BETTER
    if interval[1] < 0:
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
) -> ComparedRow:
    """One arm at one batch size, before and after (`baselines`: each session's baseline row
    at that batch size, for speedups saved without their standard error)."""
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
        time_direction=time_direction(interval),
        speedup_before=_value(before.speedup),
        speedup_after=_value(after.speedup),
        speedup_ci_before=_interval(before.speedup),
        speedup_ci_after=_interval(after.speedup),
        speedup_change=s_change if same_method else None,
        speedup_change_ci=_bounds(s_interval) if same_method else None,
        speedup_direction=speedup_direction(s_interval) if same_method else NA,
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


def _partial(r: ComparedRow, text: str) -> str:
    """A change measured on a cut-short row says so: 'worse (partial: after 12/50)'."""
    sides = (("before", r.partial_before), ("after", r.partial_after))
    cut = [f"{side} {fraction}" for side, fraction in sides if fraction]
    return f"{text} (partial: {', '.join(cut)})" if cut and text != "-" else text


def _cold(row: Row) -> float | None:
    """The cold compile (a session of schema 1 has one figure, compile_s)."""
    cost = row.compile
    if cost is None:
        return None
    return cost.first_s if cost.cold_s is None else cost.cold_s


def compare_sessions(before: SessionLike, after: SessionLike) -> list[ComparedRow]:
    """Every arm (by label) and batch size the two sessions share, in before's order."""
    first, second = SessionModel.read(before), SessionModel.read(after)
    rows = []
    same_method = method_note(first, second) is None
    after_arms = {a.name: a for a in second.arms}
    base_b, base_a = _baseline_rows(first), _baseline_rows(second)
    for arm in first.arms:
        other = after_arms.get(arm.name)
        if other is None:
            continue
        other_rows = {r.batch_size: r for r in other.rows}
        for r in arm.rows:
            o = other_rows.get(r.batch_size)
            if o is not None:
                pair = (base_b.get(r.batch_size), base_a.get(r.batch_size))
                rows.append(compare_row(arm.name, r, o, same_method, pair))
    return rows


def _baseline_rows(session: SessionModel) -> dict[int, Row]:
    return {r.batch_size: r for a in session.arms if a.name == session.baseline for r in a.rows}


# ---- warnings --------------------------------------------------------------------------------


def _model(session: SessionModel) -> str:
    source = session.options.source
    name = Path(source.path or "?").name
    chosen = source.factory or source.model
    shape = f", input {source.input_shape}" if source.input_shape else ""
    return f"{chosen} in {name}{shape}" if chosen else f"{name}{shape}"


def _replicates(session: SessionModel) -> int:
    """The rounds the run measured (its rows'), else the rounds its options asked for."""
    measured = max((r.replicates for r in session.rows), default=0)
    return measured or session.options.replicates or 1


def _setting(session: SessionModel, key: str) -> Any:
    return _replicates(session) if key == REPLICATES else session.config[key]


def comparison_warnings(before: SessionLike, after: SessionLike) -> list[str]:
    """What makes the comparison less than like for like, in sentences."""
    first, second = SessionModel.read(before), SessionModel.read(after)
    out = []
    if _model(first) != _model(second):
        out.append(f"the models differ: {_model(first)} before, {_model(second)} after")
    cb, ca = first.config, second.config
    if cb and ca:
        for key, label in SETTINGS:
            if key not in cb or key not in ca:  # older sessions lack some
                continue
            b, a = _setting(first, key), _setting(second, key)
            if b != a:
                out.append(f"the {label} differ: {_plain(b)} before, {_plain(a)} after")
        if loop_text(dict(cb)) != loop_text(dict(ca)):
            out.append(
                f"the training loops differ: {loop_text(dict(cb))} before, "
                f"{loop_text(dict(ca))} after"
            )
    names_b = [a.name for a in first.arms]
    names_a = [a.name for a in second.arms]
    for which, names, others in (("before", names_b, names_a), ("after", names_a, names_b)):
        alone = [n for n in names if n not in others]
        if alone:
            out.append(f"only {which} has arm(s) {', '.join(alone)}: not compared")
    single = [w for w, s in (("before", first), ("after", second)) if _replicates(s) < 2]
    if single:
        which = "both sessions have" if len(single) == 2 else f"the {single[0]} session has"
        out.append(
            f"{which} a single replicate: one round has no interval, so no change is judged "
            "(run 3 or more rounds: --replicates)"
        )
    note = method_note(first, second)
    if note:
        out.append(note)
    return out


def _plain(value: Any) -> Any:
    """A setting as session.json holds it (the model keeps its lists as tuples)."""
    return list(value) if isinstance(value, tuple) else value


# ---- the whole comparison --------------------------------------------------------------------


@dataclass
class SessionDiff:
    """Two saved sessions side by side (`tcprof compare`): each shared arm and batch size's
    changes with their intervals, and the warnings that qualify them; `swapped`: the second
    session given is the older, so it is `before`. The Python API's `tcprof.compare` returns
    its `Comparison` built from this."""

    before: SessionModel
    after: SessionModel
    rows: list[ComparedRow]
    warnings: list[str] = field(default_factory=list)
    swapped: bool = False

    @property
    def compared_nothing(self) -> bool:
        """The sessions share no arm and batch size: a gate built on this passed vacuously."""
        return not self.rows

    @property
    def regressions(self) -> list[str]:
        """What got worse beyond noise: a step time or a speedup."""
        out = []
        for r in self.rows:
            where = f"{r.arm} bs {r.batch_size}"
            if r.time_direction == WORSE:
                change = f"{pct(r.time_change)}{ci_text(r.time_change_ci)}"
                out.append(_partial(r, f"{where}: step time {change}"))
            if r.speedup_direction == WORSE:
                change = f"{pct(r.speedup_change)}{ci_text(r.speedup_change_ci)}"
                out.append(_partial(r, f"{where}: speedup {change}"))
        return out


def diff_sessions(a: SessionLike, b: SessionLike) -> SessionDiff:
    """Two sessions in either order: the newer is "after"."""
    first, second = SessionModel.read(a), SessionModel.read(b)
    before, after = newest_last(first, second)
    rows = compare_sessions(before, after)
    warnings = comparison_warnings(before, after) + machine_warnings(before, after, rows)
    return SessionDiff(before, after, rows, warnings, swapped=before is not first)


def machine_warnings(
    before: SessionModel, after: SessionModel, rows: list[ComparedRow]
) -> list[str]:
    """The same model's baseline arm moved beyond noise: the machine changed, not the code, so
    every step time moved with it and the speedups are what to read."""
    baseline = before.arms[0].name if before.arms else None
    if _model(before) != _model(after) or baseline is None:
        return []
    moved = [r for r in rows if r.arm == baseline and r.time_direction in (WORSE, BETTER)]
    if not moved:
        return []
    sizes = ", ".join(f"bs {r.batch_size} {pct(r.time_change)}" for r in moved)
    return [
        f"the baseline {baseline} itself moved beyond noise ({sizes}) on the same model: the "
        "machine changed, not the code; read the speedups, which pair each arm with its own "
        "session's baseline"
    ]


# ---- text ------------------------------------------------------------------------------------


def pct(value: float | None) -> str:
    """A change between sessions, to a tenth of a percent: '+4.2%', '−0.8%'."""
    return units.change(value, digits=1)


NO_INTERVAL_TEXT = " (one round: no interval)"


def ci_text(ci: Interval | None) -> str:
    return f" [{pct(ci.low)} {pct(ci.high)}]" if ci else NO_INTERVAL_TEXT


def _speedup(value: float | None, ci: Interval | None) -> str:
    """A session's speedup as its own table shows it: a figure only where settled."""
    if value is None:
        return "-"
    settled = ci is not None and stats.settled(ci.low, ci.high)
    return str(Speedup(value, ci, None, ci is not None, None, None, settled))


def _speedup_change(r: ComparedRow) -> str:
    if r.speedup_before is None or r.speedup_after is None:
        return "-"
    if r.speedup_change is None:
        return "no interval (one round)" if r.speedup_direction == NA else "-"
    return pct(r.speedup_change) + ci_text(r.speedup_change_ci)


def _seconds(value: float | None) -> str:
    return units.seconds(value, unit=False)  # the column's header says s


def _pair(before: str, after: str) -> str:
    return "-" if before == after == "-" else f"{before} → {after}"


HEADER = [
    "arm",
    "bs",
    "median ms",
    "change [95% CI]",
    "time",
    "speedup",
    "speedup change [95% CI]",
    "speedup change",
    "compile s cold",
    "compile s warm",
    "tensor peak",
    "memory",
]


def comparison_cells(r: ComparedRow) -> list[str]:
    """One row as text (the CLI table and the app's dialog)."""
    memory = f" ({pct(r.memory_change)})" if r.memory_change is not None else ""
    return [
        str(r.arm),
        str(r.batch_size),
        _partial(
            r,
            _pair(
                units.ms(r.median_ms_before, unit=False), units.ms(r.median_ms_after, unit=False)
            ),
        ),
        pct(r.time_change) + ci_text(r.time_change_ci),
        _partial(r, r.time_direction),
        _pair(
            _speedup(r.speedup_before, r.speedup_ci_before),
            _speedup(r.speedup_after, r.speedup_ci_after),
        ),
        _speedup_change(r),
        _partial(r, r.speedup_direction),
        _pair(_seconds(r.compile_cold_before), _seconds(r.compile_cold_after)),
        _pair(_seconds(r.compile_warm_before), _seconds(r.compile_warm_after)),
        _pair(units.megabytes(r.peak_mb_before), units.megabytes(r.peak_mb_after)) + memory,
        r.memory_direction,
    ]


def column_directions(r: ComparedRow) -> list[str | None]:
    """Each HEADER column's direction, which colours it (None: a column left uncoloured)."""
    time_, speed, memory = r.time_direction, r.speedup_direction, r.memory_direction
    return [None, None, time_, time_, time_, speed, speed, speed, None, None, memory, memory]


def render_comparison(rows: list[ComparedRow]) -> str:
    if not rows:
        return "the sessions share no arm and batch size to compare"
    return render_table(HEADER, [comparison_cells(r) for r in rows])


def when(session: SessionModel) -> str:
    started = _started(session)
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if started else "?"


def render(comparison: SessionDiff, before_label: str, after_label: str) -> str:
    lines = [
        f"before: {before_label} ({when(comparison.before)})",
        f"after:  {after_label} ({when(comparison.after)})",
        "",
        render_comparison(comparison.rows),
        "",
        "time: the change in step time (geometric mean of the process medians), its 95% "
        "interval a Welch t interval from both sessions' rounds; speedup: the change in the "
        "paired speedup, its interval from the two sessions' paired log speedups with their "
        "combined standard error (they share no rounds), Welch t; one round has no interval",
    ]
    lines += [f"warning: {w}" for w in comparison.warnings]
    lines.append(outcome_text(comparison))
    return "\n".join(lines)


NOTHING_COMPARED = "nothing was compared: the sessions share no arm and batch size"


def outcome_text(comparison: SessionDiff) -> str:
    """The comparison's last word: what got worse, nothing, or that nothing was compared."""
    if comparison.compared_nothing:
        return NOTHING_COMPARED
    worse = comparison.regressions
    return "worse beyond noise: " + "; ".join(worse) if worse else "nothing got worse beyond noise"


def compare_saved(first: str | Path, second: str | Path) -> tuple[str, SessionDiff]:
    """Two saved sessions (folders, session.json or events.jsonl files) in either order: the
    comparison as text, and the comparison itself (its regressions decide an exit code).

    Raises SessionLoadError when either cannot be read."""
    comparison = diff_sessions(read_session(first), read_session(second))
    labels = (_label(first), _label(second))
    before, after = labels[::-1] if comparison.swapped else labels
    return render(comparison, before, after), comparison


def _label(path: str | Path) -> str:
    """A session's name: its folder's, or the file's when it is not the usual name."""
    p = Path(path)
    return p.parent.name if p.name in (SESSION_JSON, EVENTS_JSONL) else p.name
