"""Errors of a run, shown in the window: the one-line cause, the traceback one click away.

Load failures, shape mismatches, compile errors and crashed workers all arrive as `error`
events; none of them is a dialog that blocks the window, and the window stays usable. The
engine's messages name command-line flags; here they name the window's fields instead
(field_names.py), and a traceback shows the user's own frames, the rest on request
(traceback_frames.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.field_names import in_app_terms
from tcprof.app.common.theme import error_colour
from tcprof.app.window.traceback_frames import user_frames
from tcprof.profiler.model.figures import Problem
from tcprof.profiler.protocol.event_text import place_text


def one_line(error: Problem, arm_names: list[str]) -> str:
    """'inductor at bs 16: oom error: …': who, where, the kind said once (a worker's message
    may start with it already: 'syntax error in model.py, line 3: …')."""
    arm = error.arm
    who = arm_names[arm] if arm is not None and 0 <= arm < len(arm_names) else "run"
    bs = f" at bs {error.batch_size}" if error.batch_size is not None else ""
    where = place_text(error.file, error.line, error.message)
    message = in_app_terms(error.message).strip().splitlines()
    first = message[0] if message else "?"
    kind = f"{error.kind} error"
    said = first if first.lower().startswith(kind.lower()) else f"{kind}: {first}"
    return f"{who}{bs}: {said}{where}"


def details_text(error: Problem, line: str, all_frames: bool) -> str:
    """One error's line and traceback: the user's frames only, unless all_frames."""
    traceback = error.traceback
    if not traceback:
        return f"{line}\n(no traceback: {in_app_terms(error.message)})\n"
    if all_frames:
        return f"{line}\n{traceback}\n"
    frames = user_frames(str(traceback))
    hidden = (
        f"\n({frames.hidden} frames of tcprof, torch and the standard library hidden: "
        "Show all frames)"
        if frames.hidden
        else ""
    )
    return f"{line}\n{frames.user}{hidden}\n"


class ErrorBanner(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(f"ErrorBanner {{ border: 1px solid {error_colour()}; }}")
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {error_colour()}; font-weight: bold")
        self.message.setTextInteractionFlags(self.message.textInteractionFlags())
        # A long word (a path) is clipped, not a minimum width for the window's right side:
        # the whole line is in the tooltip and the traceback.
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.details_button = QPushButton("Show traceback")
        self.details_button.setCheckable(True)
        self.details_button.toggled.connect(self._toggle)
        self.all_frames = QPushButton("Show all frames")
        self.all_frames.setCheckable(True)
        self.all_frames.setToolTip(
            "The traceback shows the frames of your files; this adds tcprof's, torch's and\n"
            "the standard library's"
        )
        self.all_frames.toggled.connect(self._fill_details)
        self.all_frames.hide()
        dismiss = QPushButton("Dismiss")
        dismiss.clicked.connect(self.clear)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setFont(QFont("monospace", 9))
        self.details.setMaximumHeight(180)
        self.details.hide()
        top = QHBoxLayout()
        top.addWidget(self.message, 1)
        top.addWidget(self.details_button)
        top.addWidget(self.all_frames)
        top.addWidget(dismiss)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(top)
        layout.addWidget(self.details)
        self.errors: list[Problem] = []
        self._lines: list[str] = []
        self.hide()

    def add(self, error: Problem | Mapping[str, Any], arm_names: list[str]) -> None:
        """Show `error`: the window's own, or an `error` event off the wire (raw JSON), read
        here once into the model's typed record."""
        read = error if isinstance(error, Problem) else Problem.of(error)
        if read is None:  # never: a mapping always reads as a Problem
            return
        self.errors.append(read)
        self._lines.append(one_line(read, arm_names))
        self._show_lines()
        self.show()

    def drop(self, kinds: tuple[str, ...]) -> None:
        """Take away the errors of these kinds (no longer so); hidden if none is left."""
        kept = [
            (e, line)
            for e, line in zip(self.errors, self._lines, strict=True)
            if e.kind not in kinds
        ]
        if len(kept) == len(self.errors):
            return
        if not kept:
            self.clear()
            return
        self.errors = [e for e, _line in kept]
        self._lines = [line for _e, line in kept]
        self._show_lines()

    def _show_lines(self) -> None:
        lines = self._lines
        extra = f"  (+{len(lines) - 1} more)" if len(lines) > 1 else ""
        self.message.setText(lines[0] + extra)
        self.message.setToolTip("\n".join(lines))
        self._fill_details()

    def _fill_details(self) -> None:
        all_frames = self.all_frames.isChecked()
        self.all_frames.setText("User frames only" if all_frames else "Show all frames")
        self.details.setPlainText(
            "\n".join(
                details_text(e, line, all_frames)
                for e, line in zip(self.errors, self._lines, strict=True)
            )
        )

    def text(self) -> str:
        return self.message.text()

    def _toggle(self, on: bool) -> None:
        self.details.setVisible(on)
        self.all_frames.setVisible(on)
        self.details_button.setText("Hide traceback" if on else "Show traceback")

    def clear(self) -> None:
        self.errors = []
        self._lines = []
        self.details_button.setChecked(False)
        self.all_frames.setChecked(False)
        self.message.clear()
        self.details.clear()
        self.hide()
