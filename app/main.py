"""Entry point of the desktop application (`tcprof` with no arguments, `python -m tcprof.app`).

Imports stay light on purpose: no torch, so the window shows in well under the 1.5 s budget;
workers import torch in their own processes.
"""

from __future__ import annotations

import sys
from pathlib import Path


def configure_process() -> None:
    """Hand the GIL back to the GUI thread within 1 ms (Python's default is 5 ms): the
    profiler thread is busy with Python work while events stream in, and the event loop's
    lateness otherwise grows in 5 ms steps."""
    sys.setswitchinterval(0.001)


def file_to_open(argv: list[str]) -> str | None:
    """The file the window opens at start: the first .py file (a model file or a training
    script, as a drop guesses) or saved session (session.json, events.jsonl, a session folder)
    named, as an absolute path; None if none. A model named here is the user's choice and is
    inspected, a script opened to run (never run before Run); a session only shown (its model
    runs once the user confirms)."""
    from tcprof.profiler.folders.files import is_saved_session

    for arg in argv:
        if (arg.endswith(".py") and Path(arg).is_file()) or is_saved_session(arg):
            return str(Path(arg).expanduser().resolve())
    return None


def main(argv: list[str] | None = None) -> int:
    """Open the main window; an optional argument is a model file, a script or a saved session.
    Returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    from PySide6.QtWidgets import QApplication

    from tcprof.app.common.settings import APPLICATION, ORGANIZATION

    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    configure_process()
    from tcprof.app.window.main_window import MainWindow

    window = MainWindow(prewarm=True)
    path = file_to_open(argv)
    if path:
        window.open_path(path)
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
