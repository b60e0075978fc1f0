"""`tcprof report SESSION --format html,md,csv,json --out DIR`: regenerate the reports of a
saved session (its folder, its session.json, or the events.jsonl of a run that was cut short)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tcprof.profiler.folders.files import SessionLoadError, load_session
from tcprof.profiler.report.export import FORMATS, UnknownFormat, export_reports, parse_formats
from tcprof.profiler.team_store.address import NAMING_HELP, STORE_HELP, StoreError
from tcprof.profiler.team_store.lookup import local_session

EXIT_OK, EXIT_USAGE = 0, 2


def add_report_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "report",
        help="write report.html, report.md, steps.csv and session.json from a saved session",
    )
    parser.add_argument(
        "session",
        help=f"a session folder, its session.json, or the events.jsonl of a run; {NAMING_HELP}",
    )
    parser.add_argument("--store", metavar="URI", help=STORE_HELP)
    parser.add_argument(
        "--format",
        default=",".join(FORMATS),
        help=f"comma-separated formats: {', '.join(FORMATS)} (default: all); "
        "reproduce.py is always written",
    )
    parser.add_argument(
        "--out", help="folder to write into (default: the folder holding the session file)"
    )
    parser.set_defaults(func=cmd_report)
    return parser


def _error(message: str) -> int:
    print(f"tcprof: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def cmd_report(args: argparse.Namespace) -> int:
    try:
        formats = parse_formats(args.format)
    except UnknownFormat as exc:
        return _error(str(exc))
    try:
        found = local_session(args.session, args.store)
        loaded = load_session(Path(found).expanduser(), with_events=False)
    except (SessionLoadError, StoreError) as exc:
        return _error(str(exc))
    out = Path(args.out).expanduser() if args.out else loaded.folder
    try:
        written = export_reports(loaded.session, out, formats)
    except OSError as exc:
        return _error(f"cannot write to {out}: {exc}")
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        # a value load_session's checks let through: still one line, and nothing half-written
        return _error(f"cannot report {loaded.source}: {type(exc).__name__}: {exc}")
    for p in written:
        print(p)
    return EXIT_OK
