"""A distributed arm's spread on the step-time plot: the area between its fastest and its
slowest rank per step, in the arm's colour, translucent, under the slowest rank's curve.

One QGraphicsPathItem per arm, built from the visible, decimated points; NaN gaps (between
sections) split it into separate polygons so sections are not joined.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsPathItem

BAND_ALPHA = 70  # of 255


def band_path(x: np.ndarray, low: np.ndarray, high: np.ndarray) -> QPainterPath:
    """Closed polygons between `low` and `high` over x, one per run of finite points."""
    path = QPainterPath()
    finite = np.isfinite(low) & np.isfinite(high)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], finite.astype(np.int8), [0]))))
    for start, end in zip(edges[::2], edges[1::2], strict=True):
        xs, lo, hi = x[start:end], low[start:end], high[start:end]
        points = [QPointF(a, b) for a, b in zip(xs, hi, strict=True)]
        points += [QPointF(a, b) for a, b in zip(xs[::-1], lo[::-1], strict=True)]
        path.addPolygon(QPolygonF(points))
        path.closeSubpath()
    return path


def band_item(colour: QColor) -> QGraphicsPathItem:
    """An empty band in `colour`, drawn under the curves."""
    item = QGraphicsPathItem()
    fill = QColor(colour)
    fill.setAlpha(BAND_ALPHA)
    item.setBrush(QBrush(fill))
    item.setPen(QPen(Qt.PenStyle.NoPen))
    item.setZValue(-5)
    return item
