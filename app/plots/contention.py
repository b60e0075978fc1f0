"""Contended blocks shaded on the step-time plot: the steps a neighbour slowed.

A timed block during which other processes kept the machine busy reads slow for reasons that
are not the arm's (the worker's `BlockWatch` says so in `block_done`). The Summary's status
cell counts them ("3/30 blocks contended"); here the same blocks are hatched in the arm's
colour behind its curve, with the reason on hover, so a spike is seen for what it is.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor

from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.x_axis import XAxis

HATCH_ALPHA = 90


class ContendedShading:
    """One hatched region per contended block of each arm, placed on the current x axis."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self._regions: list[list[pg.LinearRegionItem]] = []
        self._seen: list[int] = []

    def clear(self) -> None:
        for regions in self._regions:
            for region in regions:
                self.plot.removeItem(region)
        self._regions, self._seen = [], []

    def invalidate(self) -> None:
        """The x axis changed: every region is placed again at the next draw."""
        self._seen = [-1] * len(self._seen)

    def items(self, arm: int) -> list[pg.LinearRegionItem]:
        return list(self._regions[arm]) if arm < len(self._regions) else []

    def draw(self, data: LiveData, axis: XAxis, colours: list[QColor], hidden: set[int]) -> bool:
        """Bring the regions up to date with the data; True if any changed."""
        changed = False
        while len(self._regions) < len(data.arms):
            self._regions.append([])
            self._seen.append(-1)
        for arm, trace in enumerate(data.arms):
            if self._seen[arm] == trace.contended_version:
                continue
            self._seen[arm] = trace.contended_version
            for region in self._regions[arm]:
                self.plot.removeItem(region)
            self._regions[arm] = []
            colour = colours[arm] if arm < len(colours) else QColor("gray")
            for block in trace.contended:
                span = axis.region(data, block)
                if span is None:
                    continue
                region = _region(colour, span)
                region.setToolTip(f"{trace.name}: {block.text}")
                region.setVisible(arm not in hidden)
                self.plot.addItem(region, ignoreBounds=True)
                self._regions[arm].append(region)
            changed = True
        return changed


def _region(colour: QColor, span: tuple[float, float]) -> pg.LinearRegionItem:
    fill = QColor(colour)
    fill.setAlpha(HATCH_ALPHA)
    edge = QColor(colour)
    edge.setAlpha(0)
    region = pg.LinearRegionItem(
        values=span,
        movable=False,
        brush=QBrush(fill, Qt.BrushStyle.BDiagPattern),
        pen=pg.mkPen(edge),
    )
    region.setZValue(-9)  # under the compile spans and every curve
    return region
