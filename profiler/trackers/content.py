"""What a tracker is given of a saved session, the same for TensorBoard, MLflow and W&B: the
configuration as flat params, each arm's per-step series (steps.csv's rows), its headline
figures per batch size, its compile markers, its part of the summary table and verdict, and the
session's files.

Built once from the session dict, so every tracker logs the same numbers under the same names,
and those numbers are the ones session.json and steps.csv hold (tests read them back)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis.user_words import plain_reason
from tcprof.profiler.analysis.verdict import (
    session_notes,
    session_verdicts,
    speedup_interval,
    speedup_settled,
    verdict_lines,
)
from tcprof.profiler.folders.files import REPORT_HTML, REPORT_MD, SESSION_JSON, STEPS_CSV
from tcprof.profiler.folders.steps_csv import STEPS_HEADER, steps_rows
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
# A result row's figures logged per batch size (name -> the row's key or an interval's end).
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


def flat_params(values: dict[str, Any], prefix: str = "") -> dict[str, Param]:
    """A nested dict as `a.b` keys (config.source.path is `source.path`)."""
    out: dict[str, Param] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flat_params(value, f"{name}."))
        else:
            out[name] = param_value(value)
    return out


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def session_params(session: dict[str, Any]) -> dict[str, Param]:
    config = {k: v for k, v in (session.get("config") or {}).items() if k not in NOT_PARAMS}
    params = flat_params(config)
    env = session.get("environment") or {}
    for key in ("torch", "python", "device_name", "cpu_count"):
        if env.get(key) is not None:
            params[f"environment.{key}"] = param_value(env[key])
    params["model"] = model_label(session)
    params["arms"] = ",".join(str(a.get("name")) for a in session.get("arms") or [])
    params["baseline"] = str(session.get("baseline") or "")
    return params


def arm_params(session: dict[str, Any], arm: dict[str, Any]) -> dict[str, Param]:
    """The session's params and this arm's own: its backend, options and spec."""
    specs = (session.get("config") or {}).get("arms") or []
    index = arm.get("index")
    spec = specs[index] if isinstance(index, int) and 0 <= index < len(specs) else {}
    own: dict[str, Any] = {"name": arm.get("name"), "backend": arm.get("backend")}
    own.update(spec if isinstance(spec, dict) else {})
    own.update(arm.get("options") or {})
    own["baseline"] = arm.get("name") == session.get("baseline")
    own["backend"] = arm.get("backend")
    return {**session_params(session), **flat_params(own, "arm.")}


def step_series(session: dict[str, Any]) -> dict[str, list[StepSeries]]:
    """Per arm name, one series per batch size, from steps.csv's rows (the file's one
    definition, profiler/folders/steps_csv.py)."""
    col = {name: i for i, name in enumerate(STEPS_HEADER)}
    world = {
        (a.get("name"), r.get("batch_size")): r.get("world_size") or 1
        for a in session.get("arms") or []
        for r in a.get("results") or []
    }
    measured = {  # a script's samples per step, as its model was given them
        (a.get("name"), r.get("batch_size")): (r.get("script") or {}).get("samples_per_step")
        for a in session.get("arms") or []
        for r in a.get("results") or []
    }
    grouped: dict[tuple[str, int], list[list[Any]]] = {}
    for row in steps_rows(session):
        if isinstance(row[col["batch_size"]], int) and _number(row[col["ms"]]):
            grouped.setdefault((str(row[col["arm"]]), row[col["batch_size"]]), []).append(row)
    out: dict[str, list[StepSeries]] = {}
    for (arm, bs), rows in grouped.items():
        samples = measured.get((arm, bs)) or bs * int(world.get((arm, bs)) or 1)
        # (a distributed step is the global batch; a script's phase is not its batch)
        memory: dict[str, list[tuple[int, float]]] = {}
        for name in MEMORY_COLUMNS:
            points = [(r[col["step"]], _number(r[col[name]])) for r in rows]
            kept = [(s, v) for s, v in points if v is not None]
            if kept:
                memory[name] = kept
        ms = [float(r[col["ms"]]) for r in rows]
        out.setdefault(arm, []).append(
            StepSeries(
                batch_size=bs,
                steps=[int(r[col["step"]]) for r in rows],
                ms=ms,
                throughput=[samples * 1000.0 / m for m in ms],
                memory=memory,
            )
        )
    return out


def headline(arm: dict[str, Any]) -> dict[str, dict[int, float]]:
    """The row figures logged per batch size: `speedup` only where its interval is settled."""
    out: dict[str, dict[int, float]] = {}
    for r in arm.get("results") or []:
        bs = r.get("batch_size")
        if not isinstance(bs, int):
            continue
        low, high = speedup_interval(r) or (None, None)  # one round has none
        values = {**r, "speedup_ci_low": low, "speedup_ci_high": high}
        if not speedup_settled(r):
            values["speedup"] = None  # a number to quote only where settled: its interval stays
        for name in HEADLINE:
            value = _number(values.get(name))
            if value is not None:
                out.setdefault(name, {})[bs] = value
    return out


def _seconds(value: Any) -> str:
    number = _number(value)
    return units.seconds(number) if number is not None else "?"


def _first_step_text(arm: dict[str, Any], r: dict[str, Any]) -> str:
    bs = r.get("batch_size")
    first = _number(r.get("first_step_ms"))
    lines = [
        f"first step {units.ms(first)}" if first is not None else "first step",
        f"{r.get('compile_status') or r.get('status')}: compile {_seconds(r.get('compile_s'))}"
        + (
            f" (dynamo {_seconds(r.get('dynamo_compile_s'))})"
            if r.get("dynamo_compile_s") is not None
            else ""
        ),
        f"{r.get('graphs') or 0} graph(s), {r.get('graph_breaks') or 0} graph break(s), "
        f"{r.get('recompiles') or 0} recompile(s)",
    ]
    for gb in arm.get("graph_breaks") or []:
        if bs in (gb.get("batch_sizes") or [bs]):
            where = short_where(gb.get("file"), gb.get("line"))
            lines.append(f"graph break at {where}: {gb.get('reason')}")
    for fb in arm.get("fallbacks") or []:
        if fb.get("batch_size") == bs:
            where = short_where(fb.get("file"), fb.get("line"))
            lines.append(f"recompile limit hit at {where}: runs eagerly from here")
    return "\n\n".join(md_text(line) for line in lines)


def compile_markers(arm: dict[str, Any]) -> list[CompileMarker]:
    """A compiled arm's compiles, at the step each happened: its first step at each batch size
    and every recompile (eager arms compile nothing)."""
    if arm.get("backend") == "eager":
        return []
    texts: dict[tuple[int, int], list[str]] = {}
    for r in arm.get("results") or []:
        if isinstance(r.get("batch_size"), int):
            texts.setdefault((r["batch_size"], 0), []).append(_first_step_text(arm, r))
    for rc in arm.get("recompiles") or []:
        bs, step = rc.get("batch_size"), rc.get("step")
        if isinstance(bs, int) and isinstance(step, int):
            where = short_where(rc.get("file"), rc.get("line"))
            reason = plain_reason(rc) or "no reason given"
            line = f"recompile ({_seconds(rc.get('seconds'))}) at {where}: {reason}"
            texts.setdefault((bs, step), []).append(md_text(line))
    return [
        CompileMarker(bs, step, "\n\n".join(parts)) for (bs, step), parts in sorted(texts.items())
    ]


def _arm_verdict(session: dict[str, Any], arm: dict[str, Any]) -> str:
    name = arm.get("name")
    if name == session.get("baseline"):
        return f"{name} is the baseline: every other arm's speedup is its step time over theirs"
    for verdict in session_verdicts(session):
        if verdict.arm == name:
            return verdict.text
    return ""


def session_log(session: dict[str, Any], folder: Path) -> SessionLog:
    """Everything a tracker logs of the session saved in `folder`."""
    header, rows = table_rows(session)
    series = step_series(session)
    arms = [
        ArmLog(
            name=str(arm.get("name")),
            baseline=arm.get("name") == session.get("baseline"),
            params=arm_params(session, arm),
            series=series.get(str(arm.get("name")), []),
            headline=headline(arm),
            markers=compile_markers(arm),
            table=table(header, [r for r in rows if r[0] == arm.get("name")]),
            verdict=_arm_verdict(session, arm),
        )
        for arm in session.get("arms") or []
    ]
    verdict = [*verdict_lines(session), *(f"note: {n}" for n in session_notes(session))]
    return SessionLog(
        name=folder.name,
        folder=folder,
        started_at=_number(session.get("started_at")),
        ended_at=_number(session.get("ended_at")),
        status=str(session.get("status") or ""),
        params=session_params(session),
        arms=arms,
        table=table(header, rows),
        verdict="\n\n".join(md_text(line) for line in verdict),
        tags={"tcprof.model": model_label(session), "tcprof.status": str(session.get("status"))},
    )


def session_files(log: SessionLog, session: dict[str, Any], scratch: Path) -> list[Path]:
    """The session's files (SESSION_FILES) from its folder, those it lacks rendered into
    `scratch` (the folder is not changed)."""
    missing = [fmt for name, fmt in SESSION_FILES.items() if not (log.folder / name).is_file()]
    rendered = {p.name: p for p in export_reports(session, scratch, missing)} if missing else {}
    return [
        log.folder / name if (log.folder / name).is_file() else rendered[name]
        for name in SESSION_FILES
    ]
