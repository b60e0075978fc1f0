"""`--log-to` on the command line: `tcprof run`'s tracker options, and `tcprof log-to SPEC
[SPEC...] SESSION` for a session saved earlier (its folder or its session.json).

The specs are checked before anything runs (an unknown tracker, a missing extra, mlflow with no
URI: one line, exit 2); a tracker that then fails is a warning, and the session stays saved."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tcprof.profiler.trackers.specs import parse_specs

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
SPEC_HELP = (
    "tensorboard[:DIR] (one TensorBoard run per arm, under DIR/<session>; default DIR: the "
    "session's tensorboard/ folder) or mlflow[:URI] (an MLflow run with a nested run per arm; "
    "default URI: MLFLOW_TRACKING_URI)"
)
EXPERIMENT_HELP = (
    "the MLflow experiment to log into (default: MLFLOW_EXPERIMENT_NAME, else tcprof); "
    "created when missing"
)


def add_tracker_options(group: argparse._ArgumentGroup) -> None:
    """`tcprof run`'s tracker options (applied once the session is saved)."""
    group.add_argument(
        "--log-to",
        action="append",
        metavar="SPEC",
        help=f"once the session is saved, log it to a tracker (repeatable): {SPEC_HELP}; "
        "needs pip install tcprof[tensorboard] or tcprof[mlflow]",
    )
    group.add_argument("--mlflow-experiment", metavar="NAME", help=EXPERIMENT_HELP)


def check_tracker_options(specs: Sequence[str] | None, experiment: str | None) -> str | None:
    """The one-line problem with the tracker options, None when they are good."""
    try:
        parsed = parse_specs(list(specs or []))
    except ValueError as exc:
        return str(exc)
    if experiment and not any(s.kind == "mlflow" for s in parsed):
        return "--mlflow-experiment needs --log-to mlflow"
    return None


def _say(line: str) -> None:
    print(f"tcprof: {line}", file=sys.stderr)


def log_to_trackers(folder: Path, specs: Sequence[str], experiment: str | None) -> int:
    """Log a saved session, each outcome a line on stderr: EXIT_OK when every tracker took it,
    EXIT_ERROR when one did not, EXIT_USAGE when the folder holds no readable session,
    EXIT_INTERRUPTED on Ctrl+C (the session stays saved)."""
    # imported here, not by `tcprof run`'s start (before its first worker): 0.1 s
    from tcprof.profiler.store.files import SessionLoadError
    from tcprof.profiler.trackers.log import log_session

    try:
        warnings = log_session(folder, specs, mlflow_experiment=experiment, on_logged=_say)
    except SessionLoadError as exc:
        _say(f"error: cannot read session: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _say(f"logging to the trackers interrupted; the session is saved in {folder}")
        return EXIT_INTERRUPTED
    for line in warnings:
        _say(f"warning: {line}")
    if warnings:
        _say(f"the session is saved in {folder}; log it again with tcprof log-to")
    return EXIT_ERROR if warnings else EXIT_OK


def add_log_to_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "log-to",
        help="log a saved session to TensorBoard or MLflow; exit 1 when a tracker could not "
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
