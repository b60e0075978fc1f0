"""The `tcprof` command: the window with no arguments, `tcprof gui [MODEL.py | SESSION]` or
`tcprof SESSION` (a session.json, an events.jsonl or a session folder), the headless engine's
command line (`tcprof.profiler.cli.main`) for everything else.

The dispatch lives here, not in `profiler/`, because the engine never imports the GUI. Both
sides are imported only once chosen, so a headless command never loads Qt and the window's
start-up never pays for the engine's command line.
"""

from __future__ import annotations

import sys


def window_arguments(argv: list[str]) -> list[str] | None:
    """The window's arguments when argv asks for the window (nothing, `gui ...`, or one saved
    session); None when it is a headless command."""
    if not argv:
        return []
    if argv[0] == "gui":
        return argv[1:]
    from tcprof.profiler.folders.files import is_saved_session

    if len(argv) == 1 and is_saved_session(argv[0]):
        return argv
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    window_argv = window_arguments(argv)
    if window_argv is not None:
        from tcprof.app.main import main as open_window

        return open_window(window_argv)
    from tcprof.profiler.cli.main import main as run_command

    return run_command(argv)


if __name__ == "__main__":
    sys.exit(main())
