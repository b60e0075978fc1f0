"""The setup panel fits its default width at 1024 px (about 300): a form's row that does not fit
puts its field under its label, and a button is as wide as its text, not the style's 80 px
minimum, so that nothing is cut off at the panel's right edge."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QPushButton

BUTTON_PADDING_PX = 24  # the label's margins and the frame, either side together


def wrapping(form: QFormLayout) -> QFormLayout:
    """A form whose rows wrap (field under label) only when the panel is too narrow for them:
    a wide panel looks as before, a narrow one clips nothing."""
    form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
    return form


def text_wide(button: QPushButton) -> QPushButton:
    """A button that may shrink to its text's width (and grows like any other)."""
    button.setMinimumWidth(
        button.fontMetrics().horizontalAdvance(button.text()) + BUTTON_PADDING_PX
    )
    return button
