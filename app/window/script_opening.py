"""Opening a training script in the window: File > Open script…, the Model box's button, and a
.py file dropped on the window, which may be either a script or a model file, so the window
asks which (a notice with both choices, the likelier first). A .py file opened with File >
Open… or named on the command line (`tcprof gui train.py`) takes the same guess at once: a
script opens as a script, the notice offering the model file instead.

A script the user opens here is theirs to run (trusted); its arguments and working directory
come back from the last time it was opened (settings.py keeps them per script path, as they
are edited; a session's script only once the user let it run). A script is read here only as
text, to guess what an opened file is; it is never imported in the window.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog

CONFIRM_AND_RUN_TEXT = "▶ Confirm and run…"
CONFIRM_TIP = "The script came from a session: confirm that it may run, then it runs (Ctrl+R)"
RUN_AS_SCRIPT = "Run as a script"
OPEN_AS_MODEL = "Open as a model file"
# A training script's marks: a main guard, a backward call, an optimizer step.
_SCRIPT_MARKS = re.compile(r"__name__\s*==\s*['\"]__main__['\"]|\.backward\(|\.step\(\)")


def looks_like_script(path: str) -> bool:
    """Whether the file reads like a training script rather than a module defining a model."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")[:200_000]
    except OSError:
        return False
    return bool(_SCRIPT_MARKS.search(text))


class ScriptOpening(QObject):
    def __init__(self, window: Any) -> None:
        """window: the MainWindow (its setup, notice, banner, prefs, controller, commands;
        not imported here: main_window.py imports this module)."""
        super().__init__(window)
        self.window = window
        window.commands.open_script.triggered.connect(self.open_dialog)
        window.setup.openScriptRequested.connect(self.open_dialog)
        window.setup.script.changed.connect(self.remember)

    def open_dialog(self) -> None:
        current = self.window.setup.source_path()
        path, _ = QFileDialog.getOpenFileName(
            self.window,
            "Open a training script",
            str(Path(current).parent) if current else "",
            "Python scripts (*.py)",
        )
        if path:
            self.open_script(path)

    def open_script(self, path: str) -> bool:
        """Make `path` the run's script, with the options it was last run with. False (and
        the banner says why) if it is not a Python file; nothing happens during a run."""
        window = self.window
        if window.controller.running:
            return False
        if not (Path(path).is_file() and path.endswith(".py")):
            window.banner.add({"kind": "load", "message": f"not a Python script: {path}"}, [])
            return False
        absolute = str(Path(path).expanduser().absolute())
        window.notice.clear()
        window.setup.script.set_script(absolute, window.prefs.script_options(absolute))
        window.status.label.setText(f"Script {Path(absolute).name}: Run profiles it unchanged")
        return True

    @staticmethod
    def dropped_path(event: QDropEvent | QDragEnterEvent, suffixes: tuple[str, ...]) -> str:
        """The local file a drag carries, if the window opens its kind ("" otherwise)."""
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile() and urls[0].toLocalFile().endswith(suffixes):
            return urls[0].toLocalFile()
        return ""

    def dropped(self, path: str) -> None:
        """A .py file dropped on the window: a script to run, or a model file? Ask."""
        name = Path(path).name
        choices = [
            (RUN_AS_SCRIPT, lambda: self._chosen(path, script=True)),
            (OPEN_AS_MODEL, lambda: self._chosen(path, script=False)),
        ]
        if not looks_like_script(path):
            choices.reverse()
        self.window.notice.show_notice(
            f"{name}: run it as your training script (unchanged, with its own data, optimizer "
            "and loss), or open it as a model file (tcprof builds the model and writes the "
            "training step)?",
            choices,
            dismiss="Cancel",
        )

    def opened(self, path: str) -> None:
        """A .py file opened with File > Open… or named on the command line (the user's
        choice, so trusted): the drop's guess decides, without asking first. A script is
        opened as one, the notice offering the model file instead; anything else is a model
        file, as before."""
        if not looks_like_script(path):
            self.window.load_model(path)
        elif self.open_script(path):
            self.window.notice.show_notice(
                f"{Path(path).name} reads like a training script: Run profiles it unchanged "
                "(its own data, optimizer and loss). Or open it as a model file (tcprof builds "
                "the model and writes the training step).",
                [(OPEN_AS_MODEL, lambda: self._chosen(path, script=False))],
            )

    def _chosen(self, path: str, script: bool) -> None:
        self.window.notice.clear()
        if script:
            self.open_script(path)
        else:
            self.window.load_model(path)

    def confirm_text(self) -> tuple[str, str] | None:
        """The Run action's text and tooltip while a session's script waits for the user's
        word (None: no script waits)."""
        if self.window.setup.script.needs_trust():
            return CONFIRM_AND_RUN_TEXT, CONFIRM_TIP
        return None

    def remember(self) -> None:
        """Keep the script's options for the next time it is opened."""
        script = self.window.setup.script
        if script.active() and script.trusted:
            self.window.prefs.remember_script(script.state())
