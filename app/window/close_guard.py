"""The question before the window closes on a run in progress: a compile can take minutes, and
a click on the window's close box should not throw it away unasked. Stop and close stops the
run as Stop does (what was measured is saved) and then closes; Cancel keeps both.

`answer` is how the question is put to the user: by default a modal QMessageBox; tests give
their own (it receives the box and returns the button that was pressed).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QAbstractButton, QMessageBox, QWidget

STOP_AND_CLOSE = "Stop and close"


def question_text(activity: str) -> str:
    """'A run is in progress (compiling inductor, bs 16). Stop it and close? …'"""
    where = f" ({activity})" if activity else ""
    return f"A run is in progress{where}. Stop it and close? What was measured is kept."


def ask_with_dialog(box: QMessageBox) -> QAbstractButton | None:
    box.exec()
    return box.clickedButton()


def stop_and_close(box: QMessageBox) -> QAbstractButton | None:
    """An answer that presses Stop and close without showing the box (scripts and tests)."""
    return next((b for b in box.buttons() if b.text() == STOP_AND_CLOSE), None)


class CloseGuard:
    def __init__(
        self,
        parent: QWidget,
        running: Callable[[], bool],
        activity: Callable[[], str],
        answer: Callable[[QMessageBox], QAbstractButton | None] = ask_with_dialog,
    ) -> None:
        """running: whether a run is in progress; activity: what it is doing now, in words."""
        self.parent = parent
        self.running = running
        self.activity = activity
        self.answer = answer

    def question(self) -> QMessageBox:
        box = QMessageBox(self.parent)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Close while running?")
        box.setText(question_text(self.activity()))
        stop = box.addButton(STOP_AND_CLOSE, QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)  # Enter or Esc keeps the run
        box.setEscapeButton(cancel)
        stop.setObjectName("stop_and_close")
        return box

    def may_close(self) -> bool:
        """True when nothing runs, or the user chose Stop and close."""
        if not self.running():
            return True
        box = self.question()
        try:
            pressed = self.answer(box)
            return pressed is not None and pressed.text() == STOP_AND_CLOSE
        finally:
            box.deleteLater()
