"""A saved session sent to the store: the same runs `--log-to mlflow` makes (trackers/mlflow_log.py,
tagged with the session's series, branch, commit and tcprof's version), with MLflow's retries
kept short. A store that cannot be reached is one line that says how to send it later; the
session is saved in its folder first, so nothing measured is lost."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tcprof.profiler.team_store.address import quick_failures
from tcprof.profiler.trackers.log import log_session


def store_spec(uri: str) -> str:
    """The `--log-to` spec (and `tcprof log-to` spec) that writes to the store."""
    return f"mlflow:{uri}"


@dataclass(frozen=True)
class Sent:
    """How sending went: the line saying where it went, or the one line of warning."""

    logged: str | None = None
    warning: str | None = None


def later_line(uri: str, folder: Path, why: str) -> str:
    """The one line a store that failed costs: why, and the command that sends it later."""
    return (
        f"could not log to the store {uri} ({why}); the session is saved in {folder}: "
        f"tcprof log-to {store_spec(uri)} {folder} sends it later"
    )


def send(
    folder: Path,
    uri: str,
    experiment: str | None = None,
    on_logged: Callable[[str], None] | None = None,
) -> Sent:
    """Log the session saved in `folder` to the store at `uri`. Never raises for the store's
    failure (a session that cannot be read back is a warning too)."""
    lines: list[str] = []
    try:
        with quick_failures():
            warnings = log_session(
                folder, [store_spec(uri)], mlflow_experiment=experiment, on_logged=lines.append
            )
    except ValueError as exc:  # the folder holds no readable session
        return Sent(warning=later_line(uri, folder, str(exc)))
    if warnings:
        why = warnings[0].removeprefix(f"could not log to {store_spec(uri)}: ")
        return Sent(warning=later_line(uri, folder, why))
    if on_logged is not None:
        for line in lines:
            on_logged(line)
    return Sent(logged=lines[0] if lines else None)
