"""A session as TensorBoard runs: `DIR/<session folder>/<arm>`, one run per arm.

Written with TensorBoard's own event-file writer and summary protos (no TensorFlow, no torch):
scalars (`step_ms/bs8`, `throughput/bs8`, `rss_mb/bs8` ... per measured step, steps.csv's step
numbers; `headline/<figure>` with the batch size as the step), text (`compile/bs8` at the step
that compiled, `summary/table`, `summary/verdict`, and the whole session's `session/table` and
`session/verdict` in the baseline's run) and the configuration as hparams. Imported only when a
session is logged to TensorBoard: the library is an extra (`pip install tcprof[tensorboard]`)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.plugins.hparams.summary_v2 import hparams_pb
from tensorboard.plugins.scalar.summary_v2 import scalar_pb
from tensorboard.plugins.text.summary_v2 import text_pb
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from tcprof.profiler.trackers.content import STEP_MS, THROUGHPUT, ArmLog, Param, SessionLog

EVENT_FILE_PREFIX = "events.out.tfevents."
_UNSAFE = re.compile(r"[^A-Za-z0-9._=,()+\-]+")


def run_names(log: SessionLog) -> list[str]:
    """A folder name per arm: its name with what a path cannot hold replaced, made unique."""
    names: list[str] = []
    for arm in log.arms:
        name = _UNSAFE.sub("_", arm.name).strip("._") or "arm"
        while name in names:
            name += "_"
        names.append(name)
    return names


def tag_of(figure: str, batch_size: int) -> str:
    return f"{figure}/bs{batch_size}"


class _Run:
    """One run's event file; events are written in step order per tag (TensorBoard's reader
    drops what comes after a later step of the same tag)."""

    def __init__(self, folder: Path, wall_time: float) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob(EVENT_FILE_PREFIX + "*"):  # logging again replaces the log
            old.unlink()
        self.writer = EventFileWriter(str(folder))
        self.wall_time = wall_time

    def add(self, summary: summary_pb2.Summary, step: int) -> None:
        event = event_pb2.Event(wall_time=self.wall_time, step=step, summary=summary)
        self.writer.add_event(event)

    def scalar(self, tag: str, value: float, step: int) -> None:
        self.add(scalar_pb(tag, value), step)

    def text(self, tag: str, text: str, step: int = 0) -> None:
        if text:
            self.add(text_pb(tag, text), step)

    def close(self) -> None:
        self.writer.close()


def _write_arm(run: _Run, arm: ArmLog, log: SessionLog) -> None:
    for series in arm.series:
        bs = series.batch_size
        for step, ms, rate in zip(series.steps, series.ms, series.throughput, strict=True):
            run.scalar(tag_of(STEP_MS, bs), ms, step)
            run.scalar(tag_of(THROUGHPUT, bs), rate, step)
        for column, points in series.memory.items():
            for step, value in points:
                run.scalar(tag_of(column, bs), value, step)
    for figure, values in arm.headline.items():
        for bs, value in sorted(values.items()):
            run.scalar(f"headline/{figure}", value, bs)
    for marker in arm.markers:
        run.text(tag_of("compile", marker.batch_size), marker.text, marker.step)
    run.text("summary/table", arm.table)
    run.text("summary/verdict", arm.verdict)
    if arm.baseline:
        run.text("session/table", log.table)
        run.text("session/verdict", log.verdict)
    params: dict[str, Param] = dict(arm.params)
    run.add(hparams_pb(params, trial_id=f"{log.name}/{arm.name}", start_time_secs=run.wall_time), 0)


def write_tensorboard(log: SessionLog, logdir: Path) -> Path:
    """Write the session's runs under logdir; the folder that holds them."""
    session_dir = logdir / log.name
    wall_time = log.started_at or time.time()
    for arm, name in zip(log.arms, run_names(log), strict=True):
        run = _Run(session_dir / name, wall_time)
        try:
            _write_arm(run, arm, log)
        finally:
            run.close()
    return session_dir
