"""The plots' legend: one row of arm names above the three plots, outside every data area.

A Qt label rather than pyqtgraph's in-plot legend, which sat on the curves and the batch-size
labels and was clipped on short plots (a third arm fell out of it). The label wraps, so eight
arms with long names still all show on a narrow window.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

SWATCH = "■"


class PlotLegend(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setContentsMargins(52, 2, 8, 0)  # starts where the plots' data areas start
        self.names: list[str] = []

    def set_arms(self, names: list[str], colours: list[QColor], spread: bool = False) -> None:
        """One swatch per arm in its colour; `spread` adds what a shaded band means."""
        self.names = list(names)
        items = [
            f'<span style="color:{c.name()}">{SWATCH}</span>&nbsp;{html.escape(n)}'
            for n, c in zip(names, colours, strict=True)
        ]
        if spread:
            items.append("shaded: fastest to slowest rank")
        self.setText("&nbsp;&nbsp;&nbsp; ".join(items))
