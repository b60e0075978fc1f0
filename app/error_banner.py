"""Errors of a run, shown in the window: the one-line cause, the traceback one click away.

Load failures, shape mismatches, compile errors and crashed workers all arrive as `error`
events; none of them is a dialog that blocks the window, and the window stays usable.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.theme import error_colour


def one_line(error: dict[str, Any], arm_names: list[str]) -> str:
    arm = error.get("arm")
    who = arm_names[arm] if isinstance(arm, int) and 0 <= arm < len(arm_names) else "run"
    bs = f" at bs {error['batch_size']}" if error.get("batch_size") is not None else ""
    where = f" ({error['file']}:{error['line']})" if error.get("file") else ""
    message = str(error.get("message") or "").strip().splitlines()
    return f"{who}{bs}: {error.get('kind')} error: {message[0] if message else '?'}{where}"


class ErrorBanner(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(f"ErrorBanner {{ border: 1px solid {error_colour()}; }}")
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {error_colour()}; font-weight: bold")
        self.message.setTextInteractionFlags(self.message.textInteractionFlags())
        self.details_button = QPushButton("Show traceback")
        self.details_button.setCheckable(True)
        self.details_button.toggled.connect(self._toggle)
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
        top.addWidget(dismiss)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(top)
        layout.addWidget(self.details)
        self.errors: list[dict[str, Any]] = []
        self.hide()

    def add(self, error: dict[str, Any], arm_names: list[str]) -> None:
        self.errors.append(error)
        lines = [one_line(e, arm_names) for e in self.errors]
        extra = f"  (+{len(lines) - 1} more)" if len(lines) > 1 else ""
        self.message.setText(lines[0] + extra)
        self.message.setToolTip("\n".join(lines))
        parts = []
        for e, line in zip(self.errors, lines, strict=True):
            parts.append(line)
            parts.append(str(e.get("traceback") or "(no traceback: " + str(e.get("message")) + ")"))
            parts.append("")
        self.details.setPlainText("\n".join(parts))
        self.show()

    def text(self) -> str:
        return self.message.text()

    def _toggle(self, on: bool) -> None:
        self.details.setVisible(on)
        self.details_button.setText("Hide traceback" if on else "Show traceback")

    def clear(self) -> None:
        self.errors = []
        self.details_button.setChecked(False)
        self.message.clear()
        self.details.clear()
        self.hide()
