"""The headless commands: `tcprof run`, `examples`, `inspect`, `report`, `compare`, `log-to`, `history` (the window is
opened by `tcprof.app.launcher`, which hands every other command line to `main` here).

Exit codes: 0 all arms ran; 1 a model, compile or run error (what did run is kept);
2 a usage error; 130 interrupted by Ctrl+C, SIGTERM or SIGHUP (what was measured is kept)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tcprof.profiler.cli.history_command import add_history_parser, cmd_history
from tcprof.profiler.cli.log_to_command import add_log_to_parser, cmd_log_to, said, say
from tcprof.profiler.cli.report_command import add_report_parser, cmd_report
from tcprof.profiler.cli.store_compare import (
    NAMES_EPILOG,
    NoBaseline,
    add_store_compare_options,
    compared_paths,
)
from tcprof.profiler.config import ConfigError, ModelSource, examples
from tcprof.profiler.folders import files as session_files
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.event_text import error_where
from tcprof.profiler.protocol.types import Event
from tcprof.profiler.recording.entry import Recording
from tcprof.profiler.recording.options import add_run_parser, config_from_options
from tcprof.profiler.recording.progress import TerminalProgress
from tcprof.profiler.recording.script_args import split_command
from tcprof.profiler.recording.tracking import check_tracker_options

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
# The engine never imports the GUI: `python -m tcprof.profiler` runs the headless commands only.
NO_WINDOW_HERE = (
    "the desktop application opens with `tcprof` (no arguments, or `tcprof gui`) or "
    "`python -m tcprof.app`; `python -m tcprof.profiler` runs the headless commands"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcprof",
        description="Torch Compile Profiler: eager against torch.compile on your own training loop.",
    )
    sub = parser.add_subparsers(dest="command")
    add_run_parser(sub)

    sub.add_parser("examples", help="list the built-in example models")
    ins = sub.add_parser("inspect", help="list the models a file defines and the inferred input")
    ins.add_argument("model_file")
    ins.add_argument("--model")
    ins.add_argument("--factory")
    ins.add_argument("--input-shape")
    add_report_parser(sub)
    cmp_ = sub.add_parser(
        "compare",
        help="compare two saved sessions (the newer is 'after'); exit 1 when a step time or "
        "speedup got worse beyond noise, 2 when they share no arm and batch size",
        epilog=NAMES_EPILOG,
    )
    cmp_.add_argument("before", help="a session folder, session.json or store name (either order)")
    cmp_.add_argument("after", nargs="?", help="the other session (none with --against-latest)")
    cmp_.add_argument(
        "--margin",
        type=_margin_percent,
        default=None,
        metavar="PCT",
        help="a change counts where its whole 95%% interval lies beyond +-PCT%% (default 5: "
        "two sittings of the same code differ by more than either's interval; 0 judges by the "
        "intervals alone)",
    )
    add_store_compare_options(cmp_)
    add_log_to_parser(sub)
    add_history_parser(sub)
    sub.add_parser("gui", help="open the desktop application (the default with no arguments)")
    return parser


def cmd_run(args: argparse.Namespace) -> int:
    try:
        config = config_from_options(vars(args))  # the folder is made once the options are good
    except ConfigError as exc:
        print(f"tcprof: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    tracker_problem = check_tracker_options(args.log_to, args.mlflow_experiment)
    if tracker_problem:  # before the run: not after an hour of it
        print(f"tcprof: error: {tracker_problem}", file=sys.stderr)
        return EXIT_USAGE
    if config.node_rank > 0:  # node 0 runs the schedule and writes the session
        from tcprof.profiler.distributed import node_follower

        return EXIT_OK if node_follower.follow(config) == 0 else EXIT_ERROR
    progress = TerminalProgress(
        config, [a.name for a in config.run_arms], quiet=args.quiet, show_output=args.show_output
    )

    def log_failed(event: Event) -> None:  # a full disk: say so once, the run goes on
        print(f"tcprof: warning: {event['text']}", file=sys.stderr)

    try:
        recording = Recording(
            config,
            out=args.out,
            force=args.force,
            listeners=[progress],
            on_log_failure=log_failed,
            trackers=args.log_to or (),
            mlflow_experiment=args.mlflow_experiment,
            store=args.store,
            stop_on_signals=True,
        )
    except ConfigError as exc:  # a store that needs MLflow installed
        progress.close()
        print(f"tcprof: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # an unwritable home, an earlier run in --out, a live run there
        progress.close()
        print(f"tcprof: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    with recording:
        return _run_and_save(recording, args, progress)


def _run_and_save(
    recording: Recording, args: argparse.Namespace, progress: TerminalProgress
) -> int:
    """Run, then write what was measured however the run ended; the exit code."""
    try:
        recording.run()
    finally:
        progress.close()
    ending = recording.save()
    if ending.refusal is not None:  # found wrong before any arm ran: bad input, one line
        print(f"tcprof: error: {ending.refusal}", file=sys.stderr)
        return EXIT_USAGE
    for line in ending.problems:
        print(f"tcprof: {'warning' if ending.folder else 'error'}: {line}", file=sys.stderr)
    from tcprof.profiler.cli.summary import render_summary

    session = SessionModel.from_json(ending.session, ending.folder)
    if args.json:
        shown = {k: v for k, v in ending.session.items() if k not in ("samples", "logs")}
        print(json.dumps(shown, indent=1))
    else:
        print(render_summary(session))
    print(f"\nsession: {ending.folder or 'not saved'}", file=sys.stderr)
    interrupted = recording.interrupted
    if ending.folder is not None and args.log_to:  # the session is saved first: nothing is lost
        if said(recording.log_to_trackers(on_logged=say), ending.folder) == EXIT_INTERRUPTED:
            interrupted = True
    sent = recording.send_to_store(on_logged=say)  # a store that is down: one line, same exit
    if sent.warning:
        say(f"warning: {sent.warning}")
    if interrupted or recording.interrupted:
        print("tcprof: interrupted; what was measured is kept", file=sys.stderr)
        return EXIT_INTERRUPTED
    for line in failure_lines(session):  # the cause is the last thing read
        print(f"tcprof: error: {line}", file=sys.stderr)
    return exit_code(session) if ending.folder is not None else EXIT_ERROR


def failure_lines(session: SessionModel) -> list[str]:
    """Why arms failed, a line per distinct cause naming the arms it stopped ('eager,
    aot_eager: forward: … (model.py:7)'), each location once."""
    causes: dict[str, list[str]] = {}
    for arm in session.arms:
        err = arm.error
        if err is not None:
            place = {"file": err.file, "line": err.line, "message": err.message}
            cause = f"{err.kind}: {err.message}{error_where(place)}"
            causes.setdefault(cause, []).append(arm.name)
    return [f"{', '.join(names)}: {cause}" for cause, names in causes.items()]


# A worker that ended unasked or stalled (also in the untimed accuracy pass) fails the run.
_RUN_ERRORS = ("crash", "stall", "rendezvous")


def exit_code(model: SessionModel) -> int:
    errors = [a.error for a in model.arms if a.error]
    errors += [r.error for r in model.rows if r.error]
    errors += [e for e in model.errors if e.kind in _RUN_ERRORS]
    if errors and all(e.kind == "usage" for e in errors):
        return EXIT_USAGE
    if errors or model.status not in ("completed",):
        return EXIT_ERROR
    return EXIT_OK


def cmd_examples() -> int:
    for name, (_path, doc) in examples.list_examples().items():
        print(f"{name:12s} {doc}")
    return EXIT_OK


def cmd_inspect(args: argparse.Namespace) -> int:
    from tcprof.profiler.process.inspected import Inspection
    from tcprof.profiler.process.inspection import inspect_model

    info = Inspection.of(
        inspect_model(
            ModelSource(
                path=str(Path(args.model_file).absolute()),
                model=args.model,
                factory=args.factory,
                input_shape=args.input_shape,
            )
        )
    )
    for c in info.candidates:
        print(
            f"{c.kind or '':8s} {c.name}{c.signature or ''}"
            + ("" if c.zero_arg else "   (needs arguments)")
        )
    if info.error:
        print(f"tcprof: error: {info.error.message}", file=sys.stderr)
        return EXIT_ERROR
    params = units.count(info.params) if info.params is not None else "?"
    print(f"\nchosen: {info.chosen}  parameters: {params}  input: {info.input}")
    return EXIT_OK


def _margin_percent(text: str) -> float:
    """--margin 5 is 5%: a number from 0 to under 100."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < 100:
        raise argparse.ArgumentTypeError(f"a percentage from 0 to under 100, not {text}")
    return value / 100


def cmd_compare(args: argparse.Namespace) -> int:
    """Exit 1 when a step time or a speedup got worse beyond noise (a CI job can gate on it),
    0 otherwise, 2 when a session cannot be read or the sessions share nothing to compare."""
    from tcprof.profiler.report.compare import DRIFT_MARGIN, NOTHING_COMPARED, compare_saved
    from tcprof.profiler.team_store.address import StoreError

    try:
        margin = DRIFT_MARGIN if args.margin is None else args.margin
        text, comparison = compare_saved(*compared_paths(args), margin=margin)
    except NoBaseline as exc:  # a series' first session on the branch: nothing to gate on yet
        print(f"tcprof: warning: {exc}", file=sys.stderr)
        return EXIT_OK
    except session_files.SessionLoadError as exc:
        print(f"tcprof: error: cannot read session: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except StoreError as exc:
        print(f"tcprof: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        problem = f"{type(exc).__name__}: {exc}"  # a value the session checks let through
        print(f"tcprof: error: cannot compare the sessions: {problem}", file=sys.stderr)
        return EXIT_USAGE
    print(text)  # its warnings included
    if comparison.compared_nothing:  # a CI gate must not pass on a comparison of nothing
        print(f"tcprof: error: {NOTHING_COMPARED}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_ERROR if comparison.regressions else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] == "gui":
        build_parser().print_usage(sys.stderr)
        print(f"tcprof: error: {NO_WINDOW_HERE}", file=sys.stderr)
        return EXIT_USAGE
    parser = build_parser()
    argv, script_command = split_command(argv)  # `tcprof run [options] -- python train.py ...`
    args = parser.parse_args(argv)
    args.script_command = script_command
    if args.command == "run":
        return cmd_run(args)
    if args.command == "examples":
        return cmd_examples()
    if args.command == "inspect":
        return cmd_inspect(args)
    if args.command == "compare":
        return cmd_compare(args)
    if args.command == "report":
        return cmd_report(args)
    if args.command == "log-to":
        return cmd_log_to(args)
    if args.command == "history":
        return cmd_history(args)
    parser.print_help()
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
