"""A session as MLflow runs: one run per session, named after its folder, with a nested run per
arm, through MLflow's own client (any tracking URI it accepts: a server, sqlite:, a folder).

The session's run holds the configuration as params, the summary table and verdict as its
description, and session.json, steps.csv, report.html and report.md as artifacts (rendered for
the upload when the folder has none). Each arm's run holds the configuration and the arm's own
options as params, its per-step series (`step_ms/bs8`, `throughput/bs8`, `rss_mb/bs8` at
steps.csv's step numbers) and its headline figures per batch size (`speedup/bs8`,
`speedup_ci_low/bs8`, `compile_s/bs8`, ...) as metrics. Imported only when a session is logged
to MLflow: the library is an extra (`pip install tcprof[mlflow]`)."""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from mlflow.entities import Metric, Param
from mlflow.tracking import MlflowClient

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.trackers.content import (
    STEP_MS,
    THROUGHPUT,
    ArmLog,
    SessionLog,
    session_files,
)
from tcprof.profiler.trackers.content import Param as ParamValue
from tcprof.profiler.trackers.mlflow_names import (
    BRANCH_TAG,
    COMMIT_TAG,
    PARENT_TAG,
    SERIES_TAG,
    SESSION_TAG,
    VERSION_TAG,
    experiment_name,
    probe,
)

QUIET_ENV = "MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT"
NOTE_TAG = "mlflow.note.content"  # the run's description in MLflow's UI
MAX_TAG_CHARS = 8000
MAX_PARAM_CHARS = 6000
METRICS_PER_BATCH = 1000  # MLflow's limits on one log_batch request
PARAMS_PER_BATCH = 100

MAX_KEY_CHARS = 250
_NOT_IN_A_KEY = re.compile(r"[^\w.\- /]+")  # what MLflow refuses in a param or metric name

T = TypeVar("T")


def mlflow_key(name: str) -> str:
    """A name MLflow takes as a param or metric key: a session from elsewhere may hold config
    keys with any characters, and one refused key would refuse the whole batch."""
    key = posixpath.normpath(_NOT_IN_A_KEY.sub("_", name)).lstrip("/.") or "_"
    return key[:MAX_KEY_CHARS]


def finding_tags(session: SessionModel) -> dict[str, str]:
    """The session's series key, tcprof's version and its git branch and commit, as tags: what a
    reader of the store searches by (a run without them is still listed, by its session tag)."""
    provenance = session.provenance
    found = {
        SERIES_TAG: session.series.key if session.series else None,
        VERSION_TAG: provenance.tcprof,
        BRANCH_TAG: provenance.branch,
        COMMIT_TAG: provenance.commit,
    }
    return {k: str(v) for k, v in found.items() if v}


def _chunks(items: Sequence[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def _params(values: Mapping[str, ParamValue]) -> list[Param]:
    keyed = {mlflow_key(k): str(v)[:MAX_PARAM_CHARS] for k, v in values.items()}
    return [Param(k, v) for k, v in keyed.items()]


def _tag(text: str) -> str:
    return text if len(text) <= MAX_TAG_CHARS else text[: MAX_TAG_CHARS - 1] + "…"


def arm_metrics(arm: ArmLog, timestamp: int) -> list[Metric]:
    """An arm's series and headline figures, as MLflow metrics."""
    out: list[Metric] = []
    for series in arm.series:
        bs = series.batch_size
        for step, ms, rate in zip(series.steps, series.ms, series.throughput, strict=True):
            out.append(Metric(f"{STEP_MS}/bs{bs}", ms, timestamp, step))
            out.append(Metric(f"{THROUGHPUT}/bs{bs}", rate, timestamp, step))
        for column, points in series.memory.items():
            out += [Metric(f"{column}/bs{bs}", v, timestamp, step) for step, v in points]
    for figure, values in arm.headline.items():
        out += [Metric(f"{figure}/bs{bs}", v, timestamp, 0) for bs, v in sorted(values.items())]
    return out


class _Logger:
    def __init__(self, uri: str) -> None:
        self.client = MlflowClient(tracking_uri=uri)

    def experiment_id(self, name: str) -> str:
        found = self.client.get_experiment_by_name(name)
        return str(found.experiment_id) if found else str(self.client.create_experiment(name))

    def batch(self, run_id: str, metrics: list[Metric], params: list[Param]) -> None:
        for chunk in _chunks(params, PARAMS_PER_BATCH):
            self.client.log_batch(run_id, params=chunk)
        for metric_chunk in _chunks(metrics, METRICS_PER_BATCH):
            self.client.log_batch(run_id, metrics=metric_chunk)

    def run(self, experiment_id: str, name: str, start: int | None, tags: dict[str, str]) -> str:
        run = self.client.create_run(experiment_id, start_time=start, tags=tags, run_name=name)
        return str(run.info.run_id)


def _upload(logger: _Logger, run_id: str, log: SessionLog, session: SessionModel) -> None:
    with tempfile.TemporaryDirectory(prefix="tcprof-mlflow-") as scratch:
        for path in session_files(log, session, Path(scratch)):
            logger.client.log_artifact(run_id, str(path))


@contextlib.contextmanager
def _quiet_client() -> Iterator[None]:
    """MLflow's client prints a "View run" link to stdout as each run ends: that would land in
    `tcprof run --json`'s output, so it is hushed (MLflow's own switch) unless the user set it."""
    if QUIET_ENV in os.environ:
        yield
        return
    os.environ[QUIET_ENV] = "true"
    try:
        yield
    finally:
        os.environ.pop(QUIET_ENV, None)


def log_mlflow(log: SessionLog, session: SessionModel, uri: str, experiment: str | None) -> str:
    """Log the session to the tracking server at uri; the line that says where it went."""
    probe(uri)
    with _quiet_client():
        return _log(log, session, uri, experiment)


def _log(log: SessionLog, session: SessionModel, uri: str, experiment: str | None) -> str:
    logger = _Logger(uri)
    name = experiment_name(experiment)
    experiment_id = logger.experiment_id(name)
    start = int(log.started_at * 1000) if log.started_at else None
    end = int(log.ended_at * 1000) if log.ended_at else None
    timestamp = start or 0
    note = f"{log.verdict}\n\n{log.table}"
    tags = {**log.tags, **finding_tags(session), SESSION_TAG: log.name, NOTE_TAG: _tag(note)}
    parent = logger.run(experiment_id, log.name, start, tags)
    open_runs = [parent]
    try:
        logger.batch(parent, [], _params(log.params))
        for arm in log.arms:
            arm_tags = {PARENT_TAG: parent, "tcprof.arm": arm.name}
            arm_tags[NOTE_TAG] = _tag(f"{arm.verdict}\n\n{arm.table}")
            child = logger.run(experiment_id, arm.name, start, arm_tags)
            open_runs.append(child)
            logger.batch(child, arm_metrics(arm, timestamp), _params(arm.params))
            logger.client.set_terminated(child, "FINISHED", end_time=end)
            open_runs.remove(child)
        _upload(logger, parent, log, session)
    except BaseException:
        for run_id in reversed(open_runs):  # not left running in the UI
            try:
                logger.client.set_terminated(run_id, "FAILED", end_time=end)
            except Exception:  # the error that stopped the logging is the one reported
                pass
        raise
    logger.client.set_terminated(parent, "FINISHED", end_time=end)
    where = f"logged to MLflow: run {parent} in experiment '{name}' at {uri}"
    if urllib.parse.urlsplit(uri).scheme in ("http", "https"):
        where += f" ({uri.rstrip('/')}/#/experiments/{experiment_id}/runs/{parent})"
    return where
