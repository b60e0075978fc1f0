"""`tcprof history [MODEL_OR_SCRIPT] [--sessions DIR] [--store URI] [--html PATH]`: a series of
saved sessions over time (profiler/report/history.py), read through the sessions folder's index
and, with a store (--store, TCPROF_STORE), through the index of its sessions cached here."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tcprof.profiler.folders.home import sessions_dir
from tcprof.profiler.team_store.address import NAMING_HELP, STORE_HELP, StoreError, store_uri

HISTORY_HTML = "history.html"


def add_history_parser(sub: Any) -> None:
    p = sub.add_parser(
        "history",
        help="a series of saved sessions over commits and torch versions: a table, the changes "
        "beyond noise, and an offline HTML page",
        epilog=f"With a store, its sessions are listed beside the local ones; {NAMING_HELP}.",
    )
    p.add_argument(
        "target",
        nargs="?",
        help="the model file or script whose series to show; none: list the series found",
    )
    p.add_argument("--sessions", help="the sessions folder (default: TCPROF_HOME's sessions)")
    p.add_argument("--store", metavar="URI", help=STORE_HELP)
    p.add_argument(
        "--html",
        help=f"where to write the HTML page (default: {HISTORY_HTML} in the sessions folder)",
    )


def cmd_history(args: argparse.Namespace) -> int:
    from tcprof.profiler.report import history
    from tcprof.profiler.team_store.lookup import history_entries

    folder = Path(args.sessions) if args.sessions else sessions_dir()
    uri = store_uri(args.store)
    try:
        entries, _cache = history_entries(folder, uri)
    except StoreError as exc:  # the local sessions are still shown
        print(f"tcprof: warning: {exc}", file=sys.stderr)
        entries, _cache = history_entries(folder, None)
    where = f"{folder} or {uri}" if uri else str(folder)
    if not entries:
        print(f"no sessions in {where}")
        return 0
    if not args.target:
        print(history.render_list(entries))
        print("\nname a model file or script to see its history: tcprof history MODEL.py")
        return 0
    keys = history.series_for(entries, args.target)
    if not keys:
        print(f"no session in {where} measured {args.target}")
        return 0
    for n, key in enumerate(keys):
        h = history.build_history(entries, key)
        print(("\n" if n else "") + history.render_text(h))
        html = Path(args.html) if args.html else folder / HISTORY_HTML
        if len(keys) > 1:
            html = html.with_name(f"{html.stem}-{key}{html.suffix}")
        try:
            html.parent.mkdir(parents=True, exist_ok=True)  # a reader of the store has none yet
            html.write_text(history.render_html(h), encoding="utf-8")
        except OSError as exc:
            print(f"tcprof: warning: cannot write {html}: {exc.strerror or exc}", file=sys.stderr)
        else:
            print(f"page: {html}")
    return 0
