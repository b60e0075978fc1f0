"""The plots' legend: one row of arm names above the three plots, outside every data area.

Qt widgets rather than pyqtgraph's in-plot legend, which sat on the curves and the batch-size
labels and was clipped on short plots (a third arm fell out of it). The entries flow onto more
lines when the row is too narrow, so eight arms with long names still all show on a narrow
window.

The plot controls sit at the right end of the same row (`set_trailing`), or below the entries
when the row is too narrow for both. Each entry is a button: clicking it hides that arm's curves and markers in every plot (as W&B's
legend does), and clicking again brings them back; a hidden arm's entry is greyed and struck
out. `toggled(arm, shown)` says so.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QLabel,
    QLayout,
    QLayoutItem,
    QSizePolicy,
    QToolButton,
    QWidget,
    QWidgetItem,
)

from tcprof.app.common.theme import muted_colour

SWATCH_PX = 10
SPREAD_NOTE = "shaded: fastest to slowest rank"


class FlowLayout(QLayout):
    """Items left to right, wrapping onto the next line (Qt's flow layout example); a trailing
    item goes at the right end of the last line when it fits there, else on a line of its own,
    right-aligned."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 10) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.trailing: QLayoutItem | None = None

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 (Qt's name)
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802
        size = QSize()
        for item in [*self._items, *([self.trailing] if self.trailing else [])]:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _arrange(self, rect: QRect, move: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line = area.x(), area.y(), 0
        for item in self._items:
            widget = item.widget()
            if widget is not None and widget.isHidden():
                continue
            hint = item.sizeHint()
            if x + hint.width() > area.right() + 1 and line > 0:
                x, y, line = area.x(), y + line + 2, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._spacing
            line = max(line, hint.height())
        if self.trailing is not None:
            hint = self.trailing.sizeHint()
            if line > 0 and x + hint.width() > area.right() + 1:
                y, line = y + line + 2, 0  # no room beside the last line: a line of its own
            if move:
                self.trailing.setGeometry(QRect(QPoint(area.right() + 1 - hint.width(), y), hint))
            line = max(line, hint.height())
        return y + line - rect.y() + m.bottom()


def _swatch(colour: QColor) -> QIcon:
    pixmap = QPixmap(SWATCH_PX, SWATCH_PX)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.fillRect(0, 0, SWATCH_PX, SWATCH_PX, colour)
    painter.end()
    return QIcon(pixmap)


class PlotLegend(QWidget):
    toggled = Signal(int, bool)  # arm index, shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = FlowLayout(self)
        self._layout.setContentsMargins(52, 2, 8, 0)  # starts where the plots' data areas start
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.names: list[str] = []
        self.buttons: list[QToolButton] = []
        self.hidden: set[int] = set()
        self._colours: list[QColor] = []
        self.spread = QLabel(SPREAD_NOTE)
        self.spread.setStyleSheet(f"color: {muted_colour()};")
        self.spread.hide()
        self._layout.addItem(QWidgetItem(self.spread))

    def set_trailing(self, widget: QWidget) -> None:
        """A widget at the right end of the legend's row (the plot controls)."""
        widget.setParent(self)
        self._layout.trailing = QWidgetItem(widget)
        widget.show()
        self.updateGeometry()

    def set_arms(self, names: list[str], colours: list[QColor], spread: bool = False) -> None:
        """One entry per arm in its colour; `spread` adds what a shaded band means. Arms that
        were hidden stay hidden when the same arms are shown again."""
        if list(names) != self.names:
            for button in self.buttons:
                self._layout.removeWidget(button)
                button.deleteLater()
            self._layout.removeWidget(self.spread)
            self.buttons = []
            self._colours = [QColor(c) for c in colours]
            keep = {
                i
                for i in self.hidden
                if i < min(len(names), len(self.names)) and names[i] == self.names[i]
            }
            self.hidden.intersection_update(keep)  # the same set: the plots share it
            for i, name in enumerate(names):
                button = QToolButton(self)
                button.setText(name)
                button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
                button.setAutoRaise(True)
                button.setCheckable(True)
                button.setChecked(i not in self.hidden)
                button.setToolTip(f"Click to hide or show {name} in every plot")
                button.setCursor(Qt.CursorShape.PointingHandCursor)
                button.toggled.connect(lambda shown, arm=i: self._on_toggled(arm, shown))
                self.buttons.append(button)
                self._style(button, i not in self.hidden)
                self._layout.addWidget(button)
            self._layout.addItem(QWidgetItem(self.spread))
            self.names = list(names)
        self.spread.setVisible(spread)
        self.updateGeometry()

    def _style(self, button: QToolButton, shown: bool) -> None:
        """Shown: the arm's colour beside its name; hidden: grey and struck out."""
        font = button.font()
        font.setStrikeOut(not shown)
        button.setFont(font)
        grey = "" if shown else f" color: {muted_colour()};"
        button.setStyleSheet(
            f"QToolButton {{ padding: 0px 2px; border: none; background: transparent;{grey} }}"
        )
        arm = self.buttons.index(button) if button in self.buttons else len(self.buttons)
        colour = self._colours[arm] if arm < len(self._colours) else QColor(muted_colour())
        button.setIcon(_swatch(colour if shown else QColor(muted_colour())))

    def _on_toggled(self, arm: int, shown: bool) -> None:
        if shown:
            self.hidden.discard(arm)
        else:
            self.hidden.add(arm)
        self._style(self.buttons[arm], shown)
        self.toggled.emit(arm, shown)

    def set_shown(self, arm: int, shown: bool) -> None:
        """Show or hide an arm as a click would."""
        if 0 <= arm < len(self.buttons):
            self.buttons[arm].setChecked(shown)

    def text(self) -> str:
        """The legend as plain text: the arm names, then the band's meaning when it shows."""
        parts = list(self.names)
        if self.has_spread():
            parts.append(SPREAD_NOTE)
        return "   ".join(parts)

    def has_spread(self) -> bool:
        return not self.spread.isHidden()
