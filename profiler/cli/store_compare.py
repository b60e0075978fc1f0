"""`tcprof compare`'s sessions when the team's store is in play: either side may be a store name
(`store:NAME`, `mlflow:RUN_ID`), and `--against-latest BRANCH` compares a session with the latest
session of its own series logged from BRANCH (a CI gate: docs/ci/tcprof-gate.yml)."""

from __future__ import annotations

import argparse
from pathlib import Path

from tcprof.profiler.folders.files import read_session
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.team_store.address import (
    NAMING_HELP,
    STORE_HELP,
    StoreError,
    needed_store,
)
from tcprof.profiler.team_store.lookup import local_session


def add_store_compare_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", metavar="URI", help=STORE_HELP)
    parser.add_argument(
        "--against-latest",
        metavar="BRANCH",
        help="compare the one session given with the latest session of the same series logged "
        "to the store from BRANCH (e.g. main); no such session: a warning, exit 0",
    )


NAMES_EPILOG = f"{NAMING_HELP}; the store is --store URI or TCPROF_STORE."


class NoBaseline(Exception):
    """--against-latest found no session of the series from that branch in the store."""


def compared_paths(args: argparse.Namespace) -> tuple[str | Path, str | Path]:
    """The two sessions to compare, on disk. StoreError (one line) for a store that cannot be
    read or a name it does not hold; NoBaseline for --against-latest with nothing to compare."""
    if not args.against_latest:
        if args.after is None:
            raise StoreError("compare needs two sessions, or one and --against-latest BRANCH")
        return local_session(args.before, args.store), local_session(args.after, args.store)
    if args.after is not None:
        raise StoreError("--against-latest compares one session: give one, not two")
    session = local_session(args.before, args.store)
    uri = needed_store("--against-latest", args.store)
    doc = read_session(Path(session))  # SessionLoadError: said as any unreadable session
    found = SessionModel.from_json(doc).series
    series = found.key if found else None
    if not series:
        raise StoreError(f"{args.before} measures no file: it belongs to no series")
    from tcprof.profiler.team_store.reading import StoreReader

    reader = StoreReader(uri)
    name = Path(session).parent.name if Path(session).is_file() else Path(session).name
    latest = reader.latest(series, args.against_latest, not_session=name)
    if latest is None:
        raise NoBaseline(
            f"no session of this series from {args.against_latest} in {uri}: nothing to "
            "compare against yet"
        )
    return reader.fetch(latest)[0], session
