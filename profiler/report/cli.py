"""`tcprof report SESSION.json --format html,md,csv,json --out DIR`: regenerate the reports of a
saved session (session.json, or the events.jsonl of a run that was cut short)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from profiler.report.export import FORMATS, UnknownFormat, export_reports, parse_formats

EXIT_OK, EXIT_USAGE = 0, 2


def add_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "report",
        help="write report.html, report.md, steps.csv and session.json from a saved session",
    )
    parser.add_argument("session", help="a session.json (or the events.jsonl of a run)")
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


def load_session(path: Path) -> dict[str, Any]:
    """A session dict from session.json, or folded from an events.jsonl."""
    if path.suffix == ".jsonl":
        from profiler.session import Session

        return Session.from_events(path).to_dict()
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or not isinstance(data.get("arms"), list):
        raise ValueError("not a tcprof session (no 'arms' list)")
    return data


def cmd_report(args: argparse.Namespace) -> int:
    try:
        formats = parse_formats(args.format)
    except UnknownFormat as exc:
        return _error(str(exc))
    path = Path(args.session).expanduser()
    if not path.is_file():
        return _error(f"session file not found: {path}")
    try:
        data = load_session(path)
    except (OSError, UnicodeDecodeError) as exc:
        return _error(f"cannot read {path}: {exc}")
    except json.JSONDecodeError as exc:
        return _error(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno})")
    except ValueError as exc:
        return _error(f"{path}: {exc}")
    out = Path(args.out).expanduser() if args.out else path.parent
    try:
        written = export_reports(data, out, formats)
    except OSError as exc:
        return _error(f"cannot write to {out}: {exc}")
    for p in written:
        print(p)
    return EXIT_OK
