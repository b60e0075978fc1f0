"""Phase lines: a dashed line in every plot where a section or a phase begins, and its label.

Labels sit at the top of the step-time plot and never overlap: a label that would touch the one
before goes on the next row, and one that fits on neither row (nor beside the compile-wait line)
is left out, at every zoom.
"""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt

from tcprof.app.common.theme import muted_colour
from tcprof.app.plots.plot_frame import CACHE

LABEL_GAP = 6  # px between two phase labels on a row
LABEL_ROWS = 2  # a label that touches the one before goes on the next row, or is not shown
LABEL_ROW_PX = 18  # a row's height: the step-time plot's range leaves its top rows free of data


class PhaseGuides:
    """The guides drawn: `lines` (plot, line) and their `labels`; `blocked` says where the
    compile-wait line is (None: not shown), so no label is placed under it."""

    def __init__(self, plots: list[pg.PlotItem], blocked: Callable[[], QRectF | None]) -> None:
        self.plots = plots
        self.blocked = blocked
        self.lines: list[tuple[pg.PlotItem, pg.InfiniteLine]] = []
        self.labels: list[pg.TextItem] = []
        self.guides: list[tuple[float, str]] = []  # (x, label) of each

    def remove(self) -> None:
        for plot, item in self.lines:
            plot.removeItem(item)
        for label in self.labels:
            label.setParentItem(None)
            if label.scene() is not None:
                label.scene().removeItem(label)
        self.lines, self.labels, self.guides = [], [], []

    def draw(self, guides: list[tuple[float, str]]) -> None:
        """A dashed line per guide in every plot, its label at the top of the step-time plot."""
        self.remove()
        line_pen = pg.mkPen(muted_colour(), width=1, style=Qt.PenStyle.DashLine)
        for x, label in guides:
            for plot in self.plots:
                line = pg.InfiniteLine(pos=x, angle=90, pen=line_pen)
                plot.addItem(line, ignoreBounds=True)
                self.lines.append((plot, line))
            text = pg.TextItem(label, color=muted_colour(), anchor=(0, 0))
            text.setParentItem(self.plots[0].vb)  # placed in the view box's pixels
            text.setZValue(15)
            text.setCacheMode(CACHE)
            self.labels.append(text)
        self.guides = list(guides)
        self.place()

    def place(self) -> None:
        """Each label just right of its line, on the first of two rows where it touches no
        label before it (nor the compile-wait line); one that fits on neither is hidden."""
        if not self.labels:
            return
        vb = self.plots[0].vb
        left = vb.sceneBoundingRect().left()
        width = vb.width()
        blocked = self.blocked()
        height = self.labels[0].boundingRect().height()
        rows = [-1e9] * LABEL_ROWS  # the right edge of each row's last label
        placed = sorted(zip(self.guides, self.labels, strict=True), key=lambda g: g[0][0])
        for (x, _label), text in placed:
            px = vb.mapViewToScene(QPointF(x, 0)).x() - left + 3
            w = text.boundingRect().width()
            row = None
            if 0 <= px and px + w <= width:
                for r in range(LABEL_ROWS):
                    top = 1.0 + r * height
                    if px < rows[r] + LABEL_GAP:
                        continue
                    if (
                        blocked is not None
                        and px + w >= blocked.left() - LABEL_GAP
                        and top < blocked.bottom()
                    ):
                        continue
                    row = r
                    break
            text.setVisible(row is not None)
            if row is not None:
                text.setPos(px, 1.0 + row * height)
                rows[row] = px + w
