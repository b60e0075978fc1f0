"""Scrolling the setup panel never changes a field under the pointer."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QScrollArea

from tcprof.app.setup.setup_panel import SetupPanel


def wheel(widget, steps: int = -1) -> None:
    """One notch of the mouse wheel over the middle of widget (negative: towards the user)."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(widget.rect().center())),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_the_panel_and_changes_only_a_focused_field(qtbot):
    panel = SetupPanel(None)
    scroll = QScrollArea()
    scroll.setWidget(panel)
    scroll.setWidgetResizable(True)
    scroll.resize(360, 300)  # shorter than the panel: it scrolls
    qtbot.addWidget(scroll)
    scroll.show()
    qtbot.waitExposed(scroll)
    fields = [*panel.findChildren(QAbstractSpinBox), *panel.findChildren(QComboBox)]
    assert len(fields) > 10
    assert all(f.focusPolicy() == Qt.FocusPolicy.StrongFocus for f in fields)  # no wheel focus

    steps = panel.steps.value()
    optimizer = panel.optimizer.currentText()
    bar = scroll.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0
    wheel(panel.steps)
    wheel(panel.optimizer)
    assert panel.steps.value() == steps and panel.optimizer.currentText() == optimizer
    assert bar.value() > 0  # the wheel went to the panel, which scrolled

    scroll.activateWindow()
    panel.steps.setFocus()
    qtbot.waitUntil(panel.steps.hasFocus)
    wheel(panel.steps, steps=1)
    assert panel.steps.value() == steps + 1  # a field the user clicked into still takes it
