"""The `tcprof` command: the window with no arguments, `tcprof gui [MODEL.py | SESSION]` or
`tcprof SESSION` (a session.json, an events.jsonl or a session folder), the headless engine's
command line (`profiler.cli`) for everything else.

The dispatch lives here, not in `profiler/`, because the engine never imports the GUI. Both
sides are imported only once chosen, so a headless command never loads Qt and the window's
start-up never pays for the engine's command line.
"""

from __future__ import annotations

import sys
from pathlib import Path

SESSION_SUFFIXES = (".json", ".jsonl")


def is_saved_session(arg: str) -> bool:
    """Whether a command-line argument names a saved session: a .json or .jsonl file, or a
    folder holding session.json or events.jsonl. Only names and folder entries are looked at."""
    from profiler.session_files import EVENTS_JSONL, SESSION_JSON

    if arg.startswith("-"):
        return False
    if arg.endswith(SESSION_SUFFIXES):
        return True
    path = Path(arg)
    return path.is_dir() and any((path / name).is_file() for name in (SESSION_JSON, EVENTS_JSONL))


def window_arguments(argv: list[str]) -> list[str] | None:
    """The window's arguments when argv asks for the window (nothing, `gui ...`, or one saved
    session); None when it is a headless command."""
    if not argv:
        return []
    if argv[0] == "gui":
        return argv[1:]
    if len(argv) == 1 and is_saved_session(argv[0]):
        return argv
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    window_argv = window_arguments(argv)
    if window_argv is not None:
        from app.main import main as open_window

        return open_window(window_argv)
    from profiler.cli import main as run_command

    return run_command(argv)


if __name__ == "__main__":
    sys.exit(main())
