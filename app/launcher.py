"""The `tcprof` command: the window with no arguments or `tcprof gui [MODEL.py]`, the headless
engine's command line (`profiler.cli`) for everything else.

The dispatch lives here, not in `profiler/`, because the engine never imports the GUI. Both
sides are imported only once chosen, so a headless command never loads Qt and the window's
start-up never pays for the engine's command line.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] == "gui":
        from app.main import main as open_window

        return open_window(argv[1:])
    from profiler.cli import main as run_command

    return run_command(argv)


if __name__ == "__main__":
    sys.exit(main())
