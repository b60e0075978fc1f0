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

Both sessions are read as the typed model (`SessionModel`); saved sessions are read into it
where they are loaded (`compare_saved`). The changes with their intervals are report/changes.py's; this
module adds the warnings, the comparison as a whole and its text. The settings compared are
named by their keys in the run's options as saved (`config`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis import stats
from tcprof.profiler.config import loop_text
from tcprof.profiler.folders.files import EVENTS_JSONL, SESSION_JSON, read_session
from tcprof.profiler.model.figures import Interval
from tcprof.profiler.model.row import Speedup
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units

# The changes themselves (report/changes.py), named here too for compare's readers.
from tcprof.profiler.report.changes import BETTER as BETTER
from tcprof.profiler.report.changes import DRIFT_MARGIN as DRIFT_MARGIN
from tcprof.profiler.report.changes import NA as NA
from tcprof.profiler.report.changes import UNCHANGED as UNCHANGED
from tcprof.profiler.report.changes import WORSE as WORSE
from tcprof.profiler.report.changes import ComparedRow as ComparedRow
from tcprof.profiler.report.changes import compare_sessions as compare_sessions
from tcprof.profiler.report.changes import log_speedup as log_speedup
from tcprof.profiler.report.changes import method_note as method_note
from tcprof.profiler.report.changes import speedup_change as speedup_change
from tcprof.profiler.report.changes import speedup_direction as speedup_direction
from tcprof.profiler.report.changes import time_change as time_change
from tcprof.profiler.report.sections.table import render_table

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


def newest_last(a: SessionModel, b: SessionModel) -> tuple[SessionModel, SessionModel]:
    """(before, after): the session that started later is "after", whatever the order given."""
    ta, tb = _started(a), _started(b)
    return (b, a) if ta is not None and tb is not None and ta > tb else (a, b)


def _started(session: SessionModel) -> float | None:
    value = session.started_at
    return value if value is not None and math.isfinite(value) else None


def _partial(r: ComparedRow, text: str) -> str:
    """A change measured on a cut-short row says so: 'worse (partial: after 12/50)'."""
    sides = (("before", r.partial_before), ("after", r.partial_after))
    cut = [f"{side} {fraction}" for side, fraction in sides if fraction]
    return f"{text} (partial: {', '.join(cut)})" if cut and text != "-" else text


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


def comparison_warnings(first: SessionModel, second: SessionModel) -> list[str]:
    """What makes the comparison less than like for like, in sentences."""
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
    margin: float = DRIFT_MARGIN

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


def diff_sessions(
    first: SessionModel, second: SessionModel, margin: float = DRIFT_MARGIN
) -> SessionDiff:
    """Two sessions in either order: the newer is "after"; a change counts where its interval
    lies wholly beyond `margin` (changes.DRIFT_MARGIN)."""
    if not 0 <= margin < 1:
        raise ValueError(f"the margin is a fraction from 0 to under 1, not {margin}")
    before, after = newest_last(first, second)
    rows = compare_sessions(before, after, margin)
    warnings = comparison_warnings(before, after) + machine_warnings(before, after, rows)
    return SessionDiff(before, after, rows, warnings, swapped=before is not first, margin=margin)


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
        "combined standard error (they share no rounds), Welch t; one round has no interval; "
        f"a change counts where its whole interval lies beyond {_margin(comparison.margin)} "
        "(two sittings of the same code differ by more than either's interval)",
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


def _margin(margin: float) -> str:
    whole = round(margin * 100, 6).is_integer()
    return "\u00b1" + units.percent(margin, digits=0 if whole else 1)


def compare_saved(
    first: str | Path, second: str | Path, margin: float = DRIFT_MARGIN
) -> tuple[str, SessionDiff]:
    """Two saved sessions (folders, session.json or events.jsonl files) in either order: the
    comparison as text, and the comparison itself (its regressions decide an exit code).

    Raises SessionLoadError when either cannot be read."""
    a, b = (SessionModel.from_json(read_session(p)) for p in (first, second))
    comparison = diff_sessions(a, b, margin)
    labels = (_label(first), _label(second))
    before, after = labels[::-1] if comparison.swapped else labels
    return render(comparison, before, after), comparison


def _label(path: str | Path) -> str:
    """A session's name: its folder's, or the file's when it is not the usual name."""
    p = Path(path)
    return p.parent.name if p.name in (SESSION_JSON, EVENTS_JSONL) else p.name
