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
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis import stats
from tcprof.profiler.analysis.verdict import is_partial, speedup_interval, steps_fraction
from tcprof.profiler.config import loop_text
from tcprof.profiler.folders.files import EVENTS_JSONL, SESSION_JSON, read_session
from tcprof.profiler.protocol import units
from tcprof.profiler.report.sections.table import (
    fmt_speedup,
    render_table,
    training_mb,
)
from tcprof.profiler.session.records import METHOD_SCHEMA

MEMORY_NOISE = 0.02  # memory has no interval: a change under 2% is called unchanged
BETTER, WORSE, UNCHANGED, NA = "better", "worse", "unchanged", "n/a"

# Settings that change what is measured; each difference is named in a warning.
SETTINGS = (
    ("batch_sizes", "batch sizes"),
    ("device", "device"),
    ("warmup", "warm-up steps"),
    ("steps", "measured steps"),
    ("blocks", "blocks"),
    ("replicates", "replicates"),
    ("optimizer", "optimizer"),
    ("lr", "learning rate"),
    ("seed", "seed"),
    ("threads", "threads"),
    ("min_block_ms", "minimum block ms"),
)


def method_note(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    """Sessions measured by different methods (schema versions) compare step times only."""
    versions = {
        min(before.get("schema_version") or 1, METHOD_SCHEMA),
        min(after.get("schema_version") or 1, METHOD_SCHEMA),
    }
    if len(versions) == 1:
        return None
    return (
        "the sessions were measured by different methods (session schema "
        f"{before.get('schema_version') or 1} and {after.get('schema_version') or 1}): memory is "
        "not compared (peak RSS then, training memory now), and speedup intervals differ in "
        "meaning"
    )


def newest_last(a: dict[str, Any], b: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(before, after): the session that started later is "after", whatever the order given."""
    ta, tb = _started(a), _started(b)
    return (b, a) if ta is not None and tb is not None and ta > tb else (a, b)


def _started(session: dict[str, Any]) -> float | None:
    value = session.get("started_at")
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


# ---- changes with intervals ------------------------------------------------------------------


def _positive(values: Any) -> list[float]:
    return [float(v) for v in values or [] if isinstance(v, (int, float)) and v > 0]


def _change(
    before: tuple[float, float, int] | None, after: tuple[float, float, int] | None
) -> list[float] | None:
    """after / before - 1 as a 95% interval, from two (log mean, standard error, n)."""
    if before is None or after is None:
        return None
    _d, low, high = stats.difference_interval(before, after)
    return [math.expm1(low), math.expm1(high)]


def time_change(before: dict[str, Any], after: dict[str, Any]) -> tuple[float, list[float] | None]:
    """The change in step time, after / before - 1, and its 95% interval: the difference of
    the two sessions' mean log process medians (one process per round), its standard error
    the two sessions' combined (they share no rounds), a Welch t interval. With a single round
    on either side there is no interval (one process knows nothing of process variation)."""
    pb, pa = _positive(before.get("process_medians_ms")), _positive(after.get("process_medians_ms"))
    if not pb or not pa:  # a row saved without them: its median stands for its one process
        pb, pa = pb or [before["median_ms"]], pa or [after["median_ms"]]
    centre = math.exp(_mean_log(pa) - _mean_log(pb)) - 1.0
    return centre, _change(stats.log_mean_se(pb), stats.log_mean_se(pa))


def _mean_log(values: list[float]) -> float:
    return sum(math.log(v) for v in values) / len(values)


def time_direction(interval: list[float] | None) -> str:
    if interval is None:
        return NA
    if interval[0] > 0:
        return WORSE  # slower steps
    if interval[1] < 0:
        return BETTER
    return UNCHANGED


def log_speedup(
    row: dict[str, Any], baseline: dict[str, Any] | None
) -> tuple[float, float, int] | None:
    """(mean log speedup, its standard error, rounds) of one session's row: the paired rounds'
    log ratios, as the speedup's own interval has them; None for one round. Rows saved before
    the standard error was stored pair the process medians by round."""
    speedup, se, n = row.get("speedup"), row.get("speedup_se_log"), row.get("speedup_rounds")
    if isinstance(speedup, (int, float)) and speedup > 0 and isinstance(se, float):
        return (math.log(speedup), se, int(n)) if isinstance(n, int) and n >= 2 else None
    base = (baseline or {}).get("process_medians_ms") or []
    arm = row.get("process_medians_ms") or []
    if row is baseline or len(base) != len(arm):
        return None
    ratios = [b / a for b, a in zip(base, arm, strict=True) if _positive([b]) and _positive([a])]
    return stats.log_mean_se(ratios)


def speedup_change(
    before: tuple[float, float, int] | None, after: tuple[float, float, int] | None
) -> tuple[float | None, list[float] | None]:
    """after's speedup / before's - 1, and its 95% interval: the difference of the two paired
    mean log speedups with their combined standard error (sessions share no rounds)."""
    if before is None or after is None:
        return None, None
    return math.expm1(after[0] - before[0]), _change(before, after)


def speedup_direction(interval: list[float] | None) -> str:
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


def compare_row(
    arm: str,
    before: dict[str, Any],
    after: dict[str, Any],
    same_method: bool,
    baselines: tuple[dict[str, Any] | None, dict[str, Any] | None] = (None, None),
) -> dict[str, Any]:
    """One arm at one batch size, before and after (`baselines`: each session's baseline row
    at that batch size, for speedups saved without their standard error)."""
    change, interval = None, None
    if before.get("median_ms") and after.get("median_ms"):
        change, interval = time_change(before, after)
    s_change, s_interval = speedup_change(
        log_speedup(before, baselines[0]), log_speedup(after, baselines[1])
    )
    b_mem = training_mb(before) if same_method else None
    a_mem = training_mb(after) if same_method else None
    return {
        "arm": arm,
        "batch_size": before["batch_size"],
        "median_ms_before": before.get("median_ms"),
        "median_ms_after": after.get("median_ms"),
        "time_change": change,
        "time_change_ci": interval,
        "time_direction": time_direction(interval),
        "speedup_before": before.get("speedup"),
        "speedup_after": after.get("speedup"),
        "speedup_ci_before": _interval(before),
        "speedup_ci_after": _interval(after),
        "speedup_change": s_change if same_method else None,
        "speedup_change_ci": s_interval if same_method else None,
        "speedup_direction": speedup_direction(s_interval) if same_method else NA,
        "compile_cold_before": _compile(before, "compile_cold_s"),
        "compile_cold_after": _compile(after, "compile_cold_s"),
        "compile_warm_before": before.get("compile_warm_s"),
        "compile_warm_after": after.get("compile_warm_s"),
        "peak_mb_before": b_mem,
        "peak_mb_after": a_mem,
        "memory_change": _ratio(b_mem, a_mem),
        "memory_direction": memory_direction(b_mem, a_mem),
        "partial_before": steps_fraction(before) if is_partial(before) else None,
        "partial_after": steps_fraction(after) if is_partial(after) else None,
    }


def _interval(row: dict[str, Any]) -> list[float] | None:
    """The row's 95% speedup interval (None with one round, whatever an older session kept)."""
    ci = speedup_interval(row)
    return list(ci) if ci else None


def _partial(r: dict[str, Any], text: str) -> str:
    """A change measured on a cut-short row says so: 'worse (partial: after 12/50)'."""
    cut = [
        f"{side} {r[f'partial_{side}']}" for side in ("before", "after") if r.get(f"partial_{side}")
    ]
    return f"{text} (partial: {', '.join(cut)})" if cut and text != "-" else text


def _compile(row: dict[str, Any], key: str) -> float | None:
    """The cold compile (a session of schema 1 has one figure, compile_s)."""
    value = row.get(key)
    return row.get("compile_s") if value is None else value


def compare_sessions(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """Every arm (by label) and batch size the two sessions share, in before's order."""
    rows = []
    same_method = method_note(before, after) is None
    after_arms = {a["name"]: a for a in after.get("arms", [])}
    base_b, base_a = _baseline_rows(before), _baseline_rows(after)
    for arm in before.get("arms", []):
        other = after_arms.get(arm["name"])
        if other is None:
            continue
        other_rows = {r["batch_size"]: r for r in other["results"]}
        for r in arm["results"]:
            o = other_rows.get(r["batch_size"])
            if o is not None:
                bs = r["batch_size"]
                pair = (base_b.get(bs), base_a.get(bs))
                rows.append(compare_row(arm["name"], r, o, same_method, pair))
    return rows


def _baseline_rows(session: dict[str, Any]) -> dict[Any, dict[str, Any]]:
    arms = session.get("arms") or []
    name = session.get("baseline") or (arms[0].get("name") if arms else None)
    return {r["batch_size"]: r for a in arms if a.get("name") == name for r in a["results"]}


# ---- warnings --------------------------------------------------------------------------------


def _model(session: dict[str, Any]) -> str:
    source = (session.get("config") or {}).get("source") or {}
    name = Path(str(source.get("path") or "?")).name
    chosen = source.get("factory") or source.get("model")
    shape = f", input {source['input_shape']}" if source.get("input_shape") else ""
    return f"{chosen} in {name}{shape}" if chosen else f"{name}{shape}"


def _replicates(session: dict[str, Any]) -> int:
    rows = [r for a in session.get("arms") or [] for r in a.get("results") or []]
    measured = max((r.get("replicates") or 0 for r in rows), default=0)
    return measured or int((session.get("config") or {}).get("replicates") or 1)


def comparison_warnings(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What makes the comparison less than like for like, in sentences."""
    out = []
    if _model(before) != _model(after):
        out.append(f"the models differ: {_model(before)} before, {_model(after)} after")
    cb, ca = before.get("config") or {}, after.get("config") or {}
    if cb and ca:
        for key, label in SETTINGS:
            if key in cb and key in ca and cb[key] != ca[key]:  # older sessions lack some
                out.append(f"the {label} differ: {cb.get(key)} before, {ca.get(key)} after")
        if loop_text(cb) != loop_text(ca):
            out.append(f"the training loops differ: {loop_text(cb)} before, {loop_text(ca)} after")
    names_b = [a["name"] for a in before.get("arms") or []]
    names_a = [a["name"] for a in after.get("arms") or []]
    for which, names, others in (("before", names_b, names_a), ("after", names_a, names_b)):
        alone = [n for n in names if n not in others]
        if alone:
            out.append(f"only {which} has arm(s) {', '.join(alone)}: not compared")
    single = [w for w, s in (("before", before), ("after", after)) if _replicates(s) < 2]
    if single:
        which = "both sessions have" if len(single) == 2 else f"the {single[0]} session has"
        out.append(
            f"{which} a single replicate: one round has no interval, so no change is judged "
            "(run 3 or more rounds: --replicates)"
        )
    note = method_note(before, after)
    if note:
        out.append(note)
    return out


# ---- the whole comparison --------------------------------------------------------------------


@dataclass
class SessionDiff:
    """Two saved sessions side by side (`tcprof compare`): each shared arm and batch size's
    changes with their intervals, and the warnings that qualify them. The Python API's
    `tcprof.compare` returns its typed `Comparison` built from this."""

    before: dict[str, Any]
    after: dict[str, Any]
    rows: list[dict[str, Any]]
    warnings: list[str] = field(default_factory=list)

    @property
    def compared_nothing(self) -> bool:
        """The sessions share no arm and batch size: a gate built on this passed vacuously."""
        return not self.rows

    @property
    def regressions(self) -> list[str]:
        """What got worse beyond noise: a step time or a speedup."""
        out = []
        for r in self.rows:
            where = f"{r['arm']} bs {r['batch_size']}"
            if r["time_direction"] == WORSE:
                out.append(_partial(r, f"{where}: step time {pct(r['time_change'])}{ci_text(r)}"))
            if r["speedup_direction"] == WORSE:
                change = f"{pct(r['speedup_change'])}{ci_text(r, 'speedup_change_ci')}"
                out.append(_partial(r, f"{where}: speedup {change}"))
        return out


def diff_sessions(a: dict[str, Any], b: dict[str, Any]) -> SessionDiff:
    """Two sessions in either order: the newer is "after"."""
    before, after = newest_last(a, b)
    rows = compare_sessions(before, after)
    warnings = comparison_warnings(before, after) + machine_warnings(before, after, rows)
    return SessionDiff(before, after, rows, warnings)


def machine_warnings(
    before: dict[str, Any], after: dict[str, Any], rows: list[dict[str, Any]]
) -> list[str]:
    """The same model's baseline arm moved beyond noise: the machine changed, not the code, so
    every step time moved with it and the speedups are what to read."""
    baseline = (before.get("arms") or [{}])[0].get("name")
    if _model(before) != _model(after) or baseline is None:
        return []
    moved = [r for r in rows if r["arm"] == baseline and r["time_direction"] in (WORSE, BETTER)]
    if not moved:
        return []
    sizes = ", ".join(f"bs {r['batch_size']} {pct(r['time_change'])}" for r in moved)
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


def ci_text(row: dict[str, Any], key: str = "time_change_ci") -> str:
    ci = row.get(key)
    return f" [{pct(ci[0])} {pct(ci[1])}]" if ci else NO_INTERVAL_TEXT


def _speedup(value: float | None, ci: list[float] | None) -> str:
    """A session's speedup as its own table shows it: a figure only where settled."""
    if value is None:
        return "-"
    return fmt_speedup({"speedup": value, "speedup_ci": ci, "interval_covers_processes": bool(ci)})


def _speedup_change(r: dict[str, Any]) -> str:
    if r.get("speedup_before") is None or r.get("speedup_after") is None:
        return "-"
    if r.get("speedup_change") is None:
        return "no interval (one round)" if r["speedup_direction"] == NA else "-"
    return pct(r["speedup_change"]) + ci_text(r, "speedup_change_ci")


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


def comparison_cells(r: dict[str, Any]) -> list[str]:
    """One row as text (the CLI table and the app's dialog)."""
    return [
        str(r["arm"]),
        str(r["batch_size"]),
        _partial(
            r,
            _pair(
                units.ms(r["median_ms_before"], unit=False),
                units.ms(r["median_ms_after"], unit=False),
            ),
        ),
        pct(r["time_change"]) + ci_text(r),
        _partial(r, r["time_direction"]),
        _pair(
            _speedup(r["speedup_before"], r["speedup_ci_before"]),
            _speedup(r["speedup_after"], r["speedup_ci_after"]),
        ),
        _speedup_change(r),
        _partial(r, r["speedup_direction"]),
        _pair(_seconds(r["compile_cold_before"]), _seconds(r["compile_cold_after"])),
        _pair(_seconds(r["compile_warm_before"]), _seconds(r["compile_warm_after"])),
        _pair(units.megabytes(r["peak_mb_before"]), units.megabytes(r["peak_mb_after"]))
        + (f" ({pct(r['memory_change'])})" if r["memory_change"] is not None else ""),
        r["memory_direction"],
    ]


def render_comparison(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "the sessions share no arm and batch size to compare"
    return render_table(HEADER, [comparison_cells(r) for r in rows])


def when(session: dict[str, Any]) -> str:
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
    a, b = read_session(first), read_session(second)
    comparison = diff_sessions(a, b)
    labels = {id(a): _label(first), id(b): _label(second)}
    text = render(comparison, labels[id(comparison.before)], labels[id(comparison.after)])
    return text, comparison


def _label(path: str | Path) -> str:
    """A session's name: its folder's, or the file's when it is not the usual name."""
    p = Path(path)
    return p.parent.name if p.name in (SESSION_JSON, EVENTS_JSONL) else p.name
