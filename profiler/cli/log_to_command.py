"""`--log-to` on the command line: what `tcprof run --log-to` and `tcprof log-to SPEC [SPEC...]
SESSION` (a session saved earlier: its folder or its session.json) say on the terminal; the
options and the logging itself are the recorded run's (profiler/recording/tracking.py).

The specs are checked before anything runs (an unknown tracker, a missing extra, mlflow with no
URI: one line, exit 2); a tracker that then fails is a warning, and the session stays saved."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tcprof.profiler.recording.tracking import (
    EXPERIMENT_HELP,
    SPEC_HELP,
    Logged,
    check_tracker_options,
    log_saved,
)

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def say(line: str) -> None:
    print(f"tcprof: {line}", file=sys.stderr)


def log_to_trackers(folder: Path, specs: Sequence[str], experiment: str | None) -> int:
    """Log a saved session (`tcprof log-to`), each outcome a line on stderr; the exit code."""
    return said(log_saved(folder, specs, experiment, on_logged=say), folder)


def said(logged: Logged, folder: Path) -> int:
    """How logging the session in `folder` went, a line each on stderr: EXIT_OK when every
    tracker took it, EXIT_ERROR when one did not, EXIT_USAGE when the folder holds no readable
    session, EXIT_INTERRUPTED on Ctrl+C (the session stays saved)."""
    if logged.unreadable is not None:
        say(f"error: cannot read session: {logged.unreadable}")
        return EXIT_USAGE
    if logged.interrupted:
        say(f"logging to the trackers interrupted; the session is saved in {folder}")
        return EXIT_INTERRUPTED
    for line in logged.warnings:
        say(f"warning: {line}")
    if logged.warnings:
        say(f"the session is saved in {folder}; log it again with tcprof log-to")
    return EXIT_ERROR if logged.warnings else EXIT_OK


def add_log_to_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "log-to",
        help="log a saved session to TensorBoard, MLflow or W&B; exit 1 when a tracker could not "
        "be reached or written",
    )
    parser.add_argument("specs", nargs="+", metavar="SPEC", help=SPEC_HELP)
    parser.add_argument("session", help="a session folder or its session.json")
    parser.add_argument("--mlflow-experiment", metavar="NAME", help=EXPERIMENT_HELP)
    return parser


def cmd_log_to(args: argparse.Namespace) -> int:
    problem = check_tracker_options(args.specs, args.mlflow_experiment)
    if problem:
        print(f"tcprof: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    return log_to_trackers(Path(args.session).expanduser(), args.specs, args.mlflow_experiment)
