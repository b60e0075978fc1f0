"""What a tracker is given of a saved session, the same for TensorBoard, MLflow and W&B: the
configuration as flat params, each arm's per-step series (steps.csv's rows), its headline
figures per batch size, its compile markers, its part of the summary table and verdict, and the
session's files.

Built once from the typed session model (profiler/model/), so every tracker logs the same
numbers under the same names, and those numbers are the ones session.json and steps.csv hold
(tests read them back). steps.csv's rows stay raw: a CSV's rows are data, not records."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis.user_words import plain_reason
from tcprof.profiler.folders.files import REPORT_HTML, REPORT_MD, SESSION_JSON, STEPS_CSV
from tcprof.profiler.folders.steps_csv import STEPS_HEADER, steps_rows
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.report.data import model_label, short_where
from tcprof.profiler.report.export import export_reports
from tcprof.profiler.report.markdown import md_text, table
from tcprof.profiler.report.sections.table import table_rows

Param = str | int | float | bool
# The per-step series' names (then `/bs<batch size>`), the same in every tracker.
STEP_MS = "step_ms"
THROUGHPUT = "throughput"  # samples per second of each step (a headline's samples_per_s apart)
# steps.csv's memory columns, logged per step where the first round read them.
MEMORY_COLUMNS = ("rss_mb", "cuda_alloc_mb", "cuda_reserved_mb")
# A result row's figures logged per batch size, named as session.json names them (an interval's
# ends as `speedup_ci_low`, `speedup_ci_high`).
HEADLINE = (
    "median_ms",
    "p90_ms",
    "samples_per_s",
    "speedup",
    "speedup_ci_low",
    "speedup_ci_high",
    "compile_s",
    "compile_warm_s",
    "break_even_steps",
    "steady_peak_mb",
    "peak_rss_mb",
    "memory_ratio",
)
# The files a tracker keeps with the session, and the format that renders each when it is missing.
SESSION_FILES = {SESSION_JSON: "json", STEPS_CSV: "csv", REPORT_HTML: "html", REPORT_MD: "md"}
# steps.csv's columns a series reads (its rows are lists in STEPS_HEADER's order).
_ARM, _BS, _STEP, _MS = (STEPS_HEADER.index(c) for c in ("arm", "batch_size", "step", "ms"))
# Session config keys left out of the params: the arms are each arm's own params, the folder
# is where the session is.
NOT_PARAMS = ("arms", "artifacts_dir")


@dataclass(frozen=True)
class StepSeries:
    """One arm at one batch size: each measured step's number (steps.csv's `step`, counted from
    the first step through warm-up and across rounds), time and throughput, and the memory
    readings where there are some."""

    batch_size: int
    steps: list[int]
    ms: list[float]
    throughput: list[float]
    memory: dict[str, list[tuple[int, float]]]


@dataclass(frozen=True)
class CompileMarker:
    """What compiled at a step of one batch size (the first step, a recompile), as text."""

    batch_size: int
    step: int
    text: str


@dataclass(frozen=True)
class ArmLog:
    name: str
    baseline: bool
    params: dict[str, Param]
    series: list[StepSeries]
    headline: dict[str, dict[int, float]]  # figure -> {batch size: value}
    markers: list[CompileMarker]
    table: str  # Markdown: the summary table's rows of this arm
    verdict: str  # this arm's sentence (the baseline's says what it is)


@dataclass(frozen=True)
class SessionLog:
    name: str  # the session folder's name: a tracker's run is named after it
    folder: Path
    started_at: float | None
    ended_at: float | None
    status: str
    params: dict[str, Param]
    arms: list[ArmLog]
    table: str  # Markdown: the whole summary table
    verdict: str  # every arm's verdict and the session's notes
    tags: dict[str, str] = field(default_factory=dict)


def param_value(value: Any) -> Param:
    """A value a tracker accepts: numbers, bools and text as they are, lists joined, None
    written as Python says it (dynamic=None is a choice, not a gap)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def flat_params(values: Mapping[str, object], prefix: str = "") -> dict[str, Param]:
    """A nested mapping as `a.b` keys (config.source.path is `source.path`): the run's options
    are kept raw by the model (model/raw.py), and a tracker's params are their flat form."""
    out: dict[str, Param] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flat_params(value, f"{name}."))
        else:
            out[name] = param_value(value)
    return out


def _number(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def session_params(session: SessionModel, model: str) -> dict[str, Param]:
    """The run's options and where it ran as flat params; `model`: what it measured, in words."""
    params = flat_params({k: v for k, v in session.config.items() if k not in NOT_PARAMS})
    env = session.runtime
    ran_on = {
        "torch": env.torch if env else None,
        "python": env.python if env else None,
        "device_name": env.device_name if env else None,
        "cpu_count": env.cpu_count if env else None,
    }
    for key, value in ran_on.items():
        if value is not None:
            params[f"environment.{key}"] = param_value(value)
    arms = ",".join(a.name for a in session.arms)
    return {**params, "model": model, "arms": arms, "baseline": session.baseline or ""}


def arm_params(session: SessionModel, arm: Arm, model: str) -> dict[str, Param]:
    """The session's params and this arm's own: its backend, options and spec (the run's
    options keep each arm's spec raw, model/raw.py)."""
    specs = session.config.get("arms") or ()
    index = arm.index
    spec = specs[index] if 0 <= index < len(specs) else {}
    own: dict[str, object] = {"name": arm.name, "backend": arm.backend}
    own.update(spec if isinstance(spec, Mapping) else {})
    own.update(arm.options)
    own.update(baseline=arm.name == session.baseline, backend=arm.backend)
    return {**session_params(session, model), **flat_params(own, "arm.")}


def step_series(model: SessionModel) -> dict[str, list[StepSeries]]:
    """Per arm name, one series per batch size, from steps.csv's rows (the file's one
    definition, profiler/folders/steps_csv.py)."""
    rows_of = {(r.arm, r.batch_size): r for r in model.rows}
    grouped: dict[tuple[str, int], list[list[Any]]] = {}
    for row in steps_rows(model.to_dict()):
        if isinstance(row[_BS], int) and _figure(row[_MS]):
            grouped.setdefault((str(row[_ARM]), row[_BS]), []).append(row)
    out: dict[str, list[StepSeries]] = {}
    for (arm, bs), rows in grouped.items():
        measured = rows_of.get((arm, bs))
        # a script's samples per step, as its model was given them; else a distributed step
        # is the global batch (a script's phase is not its batch)
        samples = (measured and measured.script and measured.script.samples_per_step) or bs * int(
            (measured and measured.world_size) or 1
        )
        memory: dict[str, list[tuple[int, float]]] = {}
        for name in MEMORY_COLUMNS:
            points = [(r[_STEP], _figure(r[STEPS_HEADER.index(name)])) for r in rows]
            kept = [(s, v) for s, v in points if v is not None]
            if kept:
                memory[name] = kept
        ms = [float(r[_MS]) for r in rows]
        out.setdefault(arm, []).append(
            StepSeries(
                batch_size=bs,
                steps=[int(r[_STEP]) for r in rows],
                ms=ms,
                throughput=[samples * 1000.0 / m for m in ms],
                memory=memory,
            )
        )
    return out


def _figure(value: object) -> float | None:
    """A steps.csv cell as a finite number (a CSV row is raw data)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return _number(float(value))


def row_figures(row: Row) -> dict[str, float | None]:
    """A row's HEADLINE figures: `speedup` only where its interval is settled (a number to
    quote only there: its interval stays); one round has no interval."""
    speedup, cost = row.speedup, row.compile
    interval = speedup.interval if speedup else None
    return {
        "median_ms": row.median_ms,
        "p90_ms": row.p90_ms,
        "samples_per_s": row.samples_per_s,
        "speedup": speedup.value if speedup and speedup.settled else None,
        "speedup_ci_low": interval.low if interval else None,
        "speedup_ci_high": interval.high if interval else None,
        "compile_s": cost.first_s if cost else None,
        "compile_warm_s": cost.warm_s if cost else None,
        "break_even_steps": cost.first_break_even_steps if cost else None,
        "steady_peak_mb": row.memory.steady_peak_mb,
        "peak_rss_mb": row.memory.peak_rss_mb,
        "memory_ratio": row.memory.ratio,
    }


def headline(arm: Arm) -> dict[str, dict[int, float]]:
    """The row figures logged per batch size (figure -> {batch size: value})."""
    out: dict[str, dict[int, float]] = {}
    for row in arm.rows:
        figures = row_figures(row)
        for name in HEADLINE:
            value = _number(figures[name])
            if value is not None:
                out.setdefault(name, {})[row.batch_size] = value
    return out


def _seconds(value: float | None) -> str:
    number = _number(value)
    return units.seconds(number) if number is not None else "?"


def _first_step_text(arm: Arm, r: Row) -> str:
    bs = r.batch_size
    first = _number(r.first_step_ms)
    cost = r.compile
    dynamo = cost.dynamo_s if cost else None
    lines = [
        f"first step {units.ms(first)}" if first is not None else "first step",
        f"{r.compile_status or r.status}: compile {_seconds(cost.first_s if cost else None)}"
        + (f" (dynamo {_seconds(dynamo)})" if dynamo is not None else ""),
        f"{r.graphs or 0} graph(s), {r.graph_breaks} graph break(s), {r.recompiles} recompile(s)",
    ]
    for gb in arm.graph_breaks:
        if bs in (gb.batch_sizes or (bs,)):
            lines.append(f"graph break at {short_where(gb.file, gb.line)}: {gb.reason}")
    for fb in arm.fallbacks:
        if fb.batch_size == bs:
            where = short_where(fb.file, fb.line)
            lines.append(f"recompile limit hit at {where}: runs eagerly from here")
    return "\n\n".join(md_text(line) for line in lines)


def compile_markers(arm: Arm) -> list[CompileMarker]:
    """A compiled arm's compiles, at the step each happened: its first step at each batch size
    and every recompile (eager arms compile nothing)."""
    if arm.backend == "eager":
        return []
    texts: dict[tuple[int, int], list[str]] = {}
    for r in arm.rows:
        texts.setdefault((r.batch_size, 0), []).append(_first_step_text(arm, r))
    for rc in arm.recompiles:
        if rc.batch_size is not None and rc.step is not None:
            where = short_where(rc.file, rc.line)
            reason = plain_reason(rc) or "no reason given"
            line = f"recompile ({_seconds(rc.seconds)}) at {where}: {reason}"
            texts.setdefault((rc.batch_size, rc.step), []).append(md_text(line))
    return [
        CompileMarker(bs, step, "\n\n".join(parts)) for (bs, step), parts in sorted(texts.items())
    ]


def _arm_verdict(session: SessionModel, arm: Arm) -> str:
    if arm.name == session.baseline:
        return f"{arm.name} is the baseline: every other arm's speedup is its step time over theirs"
    return arm.verdict or ""


def session_log(model: SessionModel, folder: Path) -> SessionLog:
    """Everything a tracker logs of the session saved in `folder`."""
    header, rows = table_rows(model)
    label = model_label(model)
    series = step_series(model)
    arms = [
        ArmLog(
            name=arm.name,
            baseline=arm.name == model.baseline,
            params=arm_params(model, arm, label),
            series=series.get(arm.name, []),
            headline=headline(arm),
            markers=compile_markers(arm),
            table=table(header, [r for r in rows if r[0] == arm.name]),
            verdict=_arm_verdict(model, arm),
        )
        for arm in model.arms
    ]
    verdict = [*model.verdicts, *(f"note: {n}" for n in model.notes)]
    return SessionLog(
        name=folder.name,
        folder=folder,
        started_at=_number(model.started_at),
        ended_at=_number(model.ended_at),
        status=model.status,
        params=session_params(model, label),
        arms=arms,
        table=table(header, rows),
        verdict="\n\n".join(md_text(line) for line in verdict),
        tags={"tcprof.model": label, "tcprof.status": model.status},
    )


def session_files(log: SessionLog, session: SessionModel, scratch: Path) -> list[Path]:
    """The session's files (SESSION_FILES) from its folder, those it lacks rendered into
    `scratch` (the folder is not changed)."""
    missing = [fmt for name, fmt in SESSION_FILES.items() if not (log.folder / name).is_file()]
    rendered = (
        {p.name: p for p in export_reports(session.to_dict(), scratch, missing)} if missing else {}
    )
    return [
        log.folder / name if (log.folder / name).is_file() else rendered[name]
        for name in SESSION_FILES
    ]
