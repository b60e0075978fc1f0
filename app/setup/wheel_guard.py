"""Spin boxes and combo boxes that ignore the mouse wheel unless they have focus.

In a scrolled panel the pointer passes over a dozen fields; without this, scrolling the setup
panel changes Steps or the Optimizer on the way. A guarded field takes focus only by click or
Tab (Qt.StrongFocus, not the wheel), and an unfocused one hands the wheel to the scroll area
around it, which scrolls (or, outside one, ignores it so that Qt offers it to the parent).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QWidget,
)


class WheelGuard(QObject):
    """One event filter for every guarded field of a panel."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if (
            event.type() == QEvent.Type.Wheel
            and isinstance(watched, QWidget)
            and not watched.hasFocus()
        ):
            area = _scroll_area(watched)
            if area is not None:
                QApplication.sendEvent(area.viewport(), event)
            else:
                event.ignore()  # ignored and filtered: Qt offers it to the parent
            return True
        return False


def _scroll_area(widget: QWidget) -> QAbstractScrollArea | None:
    """The scroll area whose viewport holds widget, if any."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea) and parent.viewport().isAncestorOf(widget):
            return parent
        parent = parent.parentWidget()
    return None


def guard_wheel(root: QWidget) -> WheelGuard:
    """Guard every spin box and combo box under root (those it holds now); the guard is
    parented to root so it lives as long as the fields."""
    guard = WheelGuard(root)
    for field in (*root.findChildren(QAbstractSpinBox), *root.findChildren(QComboBox)):
        field.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        field.installEventFilter(guard)
    return guard
