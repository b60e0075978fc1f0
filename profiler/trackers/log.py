"""`log_session`: a saved session sent to the trackers its specs name, each tracker on its own.

A tracker that cannot be reached or written is one line of warning and the next is tried: the
session stays saved in its folder whatever a tracker does, so nothing measured is lost. The
tracker libraries are imported here only when a spec names them (all are extras)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from tcprof.profiler.folders.files import load_session
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.trackers.content import SessionLog, session_log
from tcprof.profiler.trackers.specs import TrackerSpec, parse_specs

DEFAULT_TENSORBOARD_DIR = "tensorboard"  # under the session folder
MAX_WARNING_CHARS = 300


def one_line(exc: BaseException) -> str:
    """An exception as one short line: its type and the first line of its message."""
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    else:
        text = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return line if len(line) <= MAX_WARNING_CHARS else line[: MAX_WARNING_CHARS - 1] + "…"


def tensorboard_dir(spec: TrackerSpec, folder: Path) -> Path:
    if spec.target:
        return Path(spec.target).expanduser().absolute()
    return folder / DEFAULT_TENSORBOARD_DIR


def _log_one(
    spec: TrackerSpec, log: SessionLog, session: SessionModel, mlflow_experiment: str | None
) -> str:
    """Log to one tracker; the line that says where it went."""
    if spec.kind == "tensorboard":
        from tcprof.profiler.trackers.tensorboard_log import write_tensorboard

        written = write_tensorboard(log, tensorboard_dir(spec, log.folder))
        return f"logged to TensorBoard: {written} (tensorboard --logdir {written.parent})"
    if spec.kind == "wandb":
        from tcprof.profiler.trackers.wandb_log import log_wandb

        return log_wandb(log, session, spec.target)
    from tcprof.profiler.trackers.mlflow_log import log_mlflow

    assert spec.target, "parse_spec fills mlflow's URI"
    return log_mlflow(log, session, spec.target, mlflow_experiment)


def log_session(
    folder: Path,
    specs: Sequence[str],
    *,
    mlflow_experiment: str | None = None,
    on_logged: Callable[[str], None] | None = None,
) -> list[str]:
    """Log the session saved in `folder` (or a session.json) to every tracker `specs` names
    (`tensorboard[:DIR]`, `mlflow[:URI]`, `wandb[:[ENTITY/]PROJECT]`). Returns one line of warning per tracker that could
    not be reached or written (empty: all fine); `on_logged` hears a line per tracker that
    was. ValueError (one line) for a bad spec or a folder that holds no readable session."""
    parsed = parse_specs(specs)
    loaded = load_session(folder, with_events=False)  # SessionLoadError is a ValueError
    session = SessionModel.from_json(loaded.session, loaded.folder)
    log = session_log(session, loaded.folder)
    warnings: list[str] = []
    for spec in parsed:
        try:
            where = _log_one(spec, log, session, mlflow_experiment)
        except Exception as exc:  # a tracker's failure of any kind: the session stays saved
            warnings.append(f"could not log to {spec}: {one_line(exc)}")
            continue
        if on_logged is not None:
            on_logged(where)
    return warnings
