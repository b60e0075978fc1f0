"""A run's trackers (`--log-to`, `log_to=`): their options' help (the options are declared with
the others, declared.py), their check before anything runs (an unknown tracker, a missing extra,
mlflow with no URI, a W&B project W&B would refuse), and the saved session logged to them once it
is saved, every outcome returned rather than printed (each door says it its way)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tcprof.profiler.trackers.specs import parse_specs

SPEC_HELP = (
    "tensorboard[:DIR] (one TensorBoard run per arm, under DIR/<session>; default DIR: the "
    "session's tensorboard/ folder), mlflow[:URI] (an MLflow run with a nested run per arm; "
    "default URI: MLFLOW_TRACKING_URI) or wandb[:[ENTITY/]PROJECT] (a W&B run per arm, grouped "
    "by the session; default: WANDB_PROJECT and WANDB_ENTITY; WANDB_MODE=offline: no network)"
)
EXPERIMENT_HELP = (
    "the MLflow experiment to log into (default: MLFLOW_EXPERIMENT_NAME, else tcprof); "
    "created when missing"
)


def check_tracker_options(specs: Sequence[str] | None, experiment: str | None) -> str | None:
    """The one-line problem with the tracker options, None when they are good."""
    try:
        parsed = parse_specs(list(specs or []))
    except ValueError as exc:
        return str(exc)
    if experiment and not any(s.kind == "mlflow" for s in parsed):
        return "--mlflow-experiment needs --log-to mlflow"
    return None


@dataclass(frozen=True)
class Logged:
    """How logging a saved session went: a warning per tracker that failed, whether Ctrl+C
    stopped it, or why the folder holds no readable session. The session stays saved."""

    warnings: list[str] = field(default_factory=list)
    interrupted: bool = False
    unreadable: str | None = None


def log_saved(
    folder: Path,
    specs: Sequence[str],
    experiment: str | None,
    on_logged: Callable[[str], None] | None = None,
) -> Logged:
    """Log the session saved in `folder` to each tracker `specs` names; `on_logged` hears a
    line per tracker that took it. Never raises for a tracker's failure or Ctrl+C."""
    # imported here, not by a run's start (before its first worker): 0.1 s
    from tcprof.profiler.trackers.log import log_session

    try:
        warnings = log_session(folder, specs, mlflow_experiment=experiment, on_logged=on_logged)
    except KeyboardInterrupt:
        return Logged(interrupted=True)
    except ValueError as exc:  # SessionLoadError: no readable session there
        return Logged(unreadable=str(exc))
    return Logged(warnings)
