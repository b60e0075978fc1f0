"""A session as W&B runs: one run per arm, named after the arm and grouped by the session (W&B's
`group`, the session folder's name), through W&B's own client: online, or offline (WANDB_MODE=
offline: written under WANDB_DIR, uploaded later with `wandb sync`).

Each arm's run holds what its MLflow run holds: the configuration and the arm's own options as
its config, its per-step series (`step_ms/bs8`, `throughput/bs8`, `rss_mb/bs8` against their
own x-axis `step/bs8`, steps.csv's step numbers) as history, its headline figures per batch size
(`speedup/bs8`, `speedup_ci_low/bs8`, `compile_s/bs8`, ...) in its summary, and its verdict and
rows of the summary table as its notes. The baseline's run also holds the whole table and
verdict, and logs session.json, steps.csv, report.html and report.md as an artifact named after
the session (rendered for the upload when the folder has none). Project and entity: the spec's
(`wandb:[ENTITY/]PROJECT`), else W&B's WANDB_PROJECT and WANDB_ENTITY, else project `tcprof`.
Imported only when a session is logged to W&B: the library is an extra (`pip install
tcprof[wandb]`)."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

import wandb

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.trackers.content import (
    STEP_MS,
    THROUGHPUT,
    ArmLog,
    SessionLog,
    session_files,
)
from tcprof.profiler.trackers.specs import WANDB_PROJECT_ENV

DEFAULT_PROJECT = "tcprof"
ARTIFACT_TYPE = "tcprof-session"
STEP = "step"  # each batch size's x-axis: `step/bs8`
_NOT_IN_AN_ARTIFACT_NAME = re.compile(r"[^\w.\-]+")


def project_of(target: str | None) -> tuple[str | None, str]:
    """(entity, project) of a spec's target: W&B's own environment where it names none (an
    entity of None is W&B's to find: WANDB_ENTITY, else the account's default)."""
    entity, _, project = (target or "").rpartition("/")
    return entity or None, project or os.environ.get(WANDB_PROJECT_ENV) or DEFAULT_PROJECT


def artifact_name(session_name: str) -> str:
    return _NOT_IN_AN_ARTIFACT_NAME.sub("_", session_name).strip("._") or "session"


def _settings() -> Any:
    """The run's W&B settings: nothing printed (stdout may be `tcprof run --json`'s), the
    process's console and this machine's stats, git and packages left alone: they describe
    where the session is logged from, not where it was measured (its config says that)."""
    return wandb.Settings(
        silent=True,
        console="off",
        x_disable_stats=True,
        x_disable_meta=True,
        x_disable_machine_info=True,
        x_save_requirements=False,
        disable_git=True,
        save_code=False,
    )


def check_login(settings: Any) -> None:
    """An online run needs W&B credentials; asking for them on a terminal would hang the
    window's logging thread (or a CI job), so their absence is an error at once."""
    merged = wandb.setup().settings.model_copy()
    merged.update_from_settings(settings)
    if merged._offline or merged._noop:
        return
    if not wandb.login(prompt=False, verify=False):
        raise PermissionError(
            "no W&B credentials: run wandb login, set WANDB_API_KEY, or set WANDB_MODE=offline"
        )


def history_rows(arm: ArmLog) -> list[dict[str, float | int]]:
    """An arm's per-step series as W&B history rows, one per (batch size, step), each with
    its batch size's x-axis value."""
    rows: list[dict[str, float | int]] = []
    for series in arm.series:
        bs = series.batch_size
        by_step: dict[int, dict[str, float | int]] = {}
        for step, ms, rate in zip(series.steps, series.ms, series.throughput, strict=True):
            row = by_step.setdefault(step, {})
            row[f"{STEP_MS}/bs{bs}"] = ms
            row[f"{THROUGHPUT}/bs{bs}"] = rate
        for column, points in series.memory.items():
            for step, value in points:
                by_step.setdefault(step, {})[f"{column}/bs{bs}"] = value
        rows += [{f"{STEP}/bs{bs}": step, **by_step[step]} for step in sorted(by_step)]
    return rows


def arm_summary(arm: ArmLog) -> dict[str, float]:
    return {f"{f}/bs{bs}": v for f, values in arm.headline.items() for bs, v in values.items()}


def _notes(arm: ArmLog, log: SessionLog) -> str:
    parts = [arm.verdict, arm.table]
    if arm.baseline:
        parts += [log.verdict, log.table]
    return "\n\n".join(p for p in parts if p)


def _artifact(log: SessionLog, session: SessionModel, scratch: Path) -> Any:
    artifact = wandb.Artifact(artifact_name(log.name), type=ARTIFACT_TYPE, metadata=log.tags)
    for path in session_files(log, session, scratch):
        artifact.add_file(str(path), name=path.name)  # copied into W&B's staging area
    return artifact


def _log_arm(
    arm: ArmLog, log: SessionLog, session: SessionModel, entity: str | None, project: str
) -> Any:
    """One arm's run, finished (marked failed by W&B's context manager if logging raises)."""
    config: dict[str, object] = {**arm.params, **log.tags}
    config.update({"tcprof.session": log.name, "tcprof.arm": arm.name})
    with wandb.init(
        entity=entity,
        project=project,
        group=log.name,
        name=arm.name,
        job_type="arm",
        notes=_notes(arm, log),
        config=config,
        settings=_settings(),
        reinit="create_new",  # a run the user's own process has open stays theirs
    ) as run:
        for series in arm.series:
            axis = f"{STEP}/bs{series.batch_size}"
            run.define_metric(axis, hidden=True)
            names = [STEP_MS, THROUGHPUT, *series.memory]
            for name in names:
                run.define_metric(f"{name}/bs{series.batch_size}", step_metric=axis)
        for row in history_rows(arm):
            run.log(row)
        run.summary.update(arm_summary(arm))
        if arm is _holder(log):
            with tempfile.TemporaryDirectory(prefix="tcprof-wandb-") as scratch:
                run.log_artifact(_artifact(log, session, Path(scratch)))
    return run


def _holder(log: SessionLog) -> ArmLog | None:
    """The run that holds the session's files: the baseline's, else the first arm's."""
    return next((a for a in log.arms if a.baseline), log.arms[0] if log.arms else None)


def log_wandb(log: SessionLog, session: SessionModel, target: str | None) -> str:
    """Log the session to W&B, a run per arm; the line that says where it went."""
    entity, project = project_of(target)
    check_login(_settings())
    runs = [_log_arm(arm, log, session, entity, project) for arm in log.arms]
    where = f"group '{log.name}' of project '{project}'"
    if runs and runs[0].settings._offline:
        folders = " ".join(str(r.settings.sync_dir) for r in runs)
        return f"logged to W&B offline: {len(runs)} run(s) in {where}: {folders} (wandb sync)"
    url = runs[0].url if runs else None
    return f"logged to W&B: {len(runs)} run(s) in {where}" + (f" ({url})" if url else "")
