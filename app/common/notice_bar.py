"""A non-modal notice above the plots: one line of news with a few buttons and a Dismiss.

Used for what the user should know but need not act on at once (an export that finished and
where it went, sessions recovered after a crash), and for the one question that must not be a
modal dialog: whether a model file from a session may run. A dialog would block the window for news;
a status-bar message scrolls away before the user sees its buttons.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class NoticeBar(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(6, 3, 6, 3)
        self._layout.addWidget(self.message, 1)
        self.buttons: list[QPushButton] = []
        self.dismiss = QPushButton("Dismiss")
        self.dismiss.clicked.connect(self.clear)
        self._layout.addWidget(self.dismiss)
        self.hide()

    def show_notice(
        self,
        text: str,
        actions: Sequence[tuple[str, Callable[[], object]]] = (),  # what it returns is dropped
        dismiss: str = "Dismiss",
    ) -> None:
        """Replace the notice: text, one button per (label, callback), and the button that
        hides it (named `dismiss`: "Cancel" when the notice asks a question)."""
        for b in self.buttons:
            self._layout.removeWidget(b)
            b.deleteLater()
        self.buttons = []
        self.message.setText(text)
        self.dismiss.setText(dismiss)
        for label, callback in actions:
            button = QPushButton(label)
            button.clicked.connect(callback)
            self._layout.insertWidget(self._layout.count() - 1, button)
            self.buttons.append(button)
        self.show()

    def clear(self) -> None:
        self.message.clear()
        self.hide()

    def text(self) -> str:
        return self.message.text() if self.isVisible() else ""
