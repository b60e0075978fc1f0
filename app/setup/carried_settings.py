"""Run settings the setup panel has no field for (blocks, sequential, the minimum block time,
accuracy tolerances, the timeout, …), kept when a saved session's setup is put back.

A session made with `tcprof run --blocks 3 --sequential` must run with those settings when it
is opened and Run is pressed, not silently with the defaults. So they are carried into the next
`RunConfig`, and shown as one line under the panel's fields with a button that clears them,
with the saved numbers that did not fit the panel's own fields. They are the one part of the
setup kept as the saved JSON: RunConfig checks them when the run is built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from tcprof.app.setup.saved_setup import fits
from tcprof.profiler.config import RunConfig


def run_default(field: dataclasses.Field[Any]) -> Any:
    """A RunConfig field's declared default (MISSING for the source)."""
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def describe(options: dict[str, Any]) -> str:
    """'blocks=3, sequential, min_block_ms=0': a flag that is on is named alone."""
    return ", ".join(key if value is True else f"{key}={value}" for key, value in options.items())


class CarriedSettings(QWidget):
    """Holds the RunConfig fields named in `keys` that differ from their defaults."""

    changed = Signal()

    def __init__(self, keys: tuple[str, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        fields = {f.name: f for f in dataclasses.fields(RunConfig)}
        self.fields = {key: fields[key] for key in keys}
        self._options: dict[str, Any] = {}
        self._adjusted: list[str] = []
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setStyleSheet("font-size: 8pt")
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip(
            "Forget these settings: the next Run uses the defaults for them"
        )
        self.clear_button.clicked.connect(self.clear)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.clear_button, 0, Qt.AlignmentFlag.AlignTop)
        self.setToolTip(
            "RunConfig fields from the opened session (or the last one) that this panel has no\n"
            "field for, e.g. --blocks, --sequential, --min-block-ms, --rtol/--atol, --timeout.\n"
            "Run uses them, so the run repeats the saved one."
        )
        self._refresh()

    def options(self) -> dict[str, Any]:
        """RunConfig keyword arguments (only those that differ from the defaults)."""
        return dict(self._options)

    def set_options(self, state: dict[str, Any], adjusted: Sequence[str] = ()) -> None:
        """Keep the state's non-default values of these fields (values of the wrong type are
        skipped); `adjusted` names fields whose value did not fit the panel's own field. The
        fields carried are any RunConfig has and the panel has not, so they stay the saved
        JSON."""
        self._options = {
            key: state[key]
            for key, field in self.fields.items()
            if key in state and state[key] != run_default(field) and fits(field, state[key])
        }
        self._adjusted = list(adjusted)
        self._refresh()

    def clear(self) -> None:
        self._options = {}
        self._adjusted = []
        self._refresh()

    def text(self) -> str:
        return self.label.text() if not self.isHidden() else ""

    def _refresh(self) -> None:
        parts = []
        if self._options:
            parts.append(f"Also from the session: {describe(self._options)}.")
        if self._adjusted:
            parts.append(f"Outside the fields' range, not restored: {', '.join(self._adjusted)}.")
        self.label.setText(" ".join(parts))
        self.setHidden(not parts)
        self.changed.emit()
