"""The compile wait: while an arm compiles (or loads, or takes its first step) and has no steps
to draw, a line at the top right of the step-time plot says so with its time running
("compiling inductor · bs 16… 12 s"), and on the time axis a span grows at the right edge.

Hovering never hides it: the crosshair's readout (readout.py) sits below it (`reserved_top`).
"""

from __future__ import annotations

import html
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor

from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.x_axis import WALL
from tcprof.profiler.protocol import units


class CompileWait:
    """The wait line in the step-time plot's pixels; `moved` hears it appear or go (the phase
    labels make room for it)."""

    def __init__(self, vb: pg.ViewBox, moved: Callable[[], None]) -> None:
        self.vb = vb
        self.moved = moved
        background = QColor(pg.getConfigOption("background"))
        background.setAlpha(225)
        self.text = pg.TextItem(
            anchor=(1, 0), color=pg.getConfigOption("foreground"), fill=pg.mkBrush(background)
        )
        self.text.setParentItem(vb)
        self.text.setZValue(40)
        self.text.hide()

    def show(
        self, data: LiveData, mode: str, spans: list[pg.LinearRegionItem], hidden: set[int]
    ) -> bool:
        """The arms waiting and for how long; on the time axis (`mode` WALL) each one's span
        grows to now. False (all hidden) when no arm waits."""
        waits = data.waits()
        text = "  ·  ".join(f"{w.text}… {units.duration(w.elapsed_s)}" for w in waits)
        if not text:
            self.hide(spans)
            return False
        if text != self.text.toPlainText():
            self.text.setHtml(f"<b>{html.escape(text)}</b>")
        self.text.setPos(self.vb.width() - 4, 1.0)
        if not self.text.isVisible():
            self.text.show()
            self.moved()
        waiting = {w.arm: w for w in waits}
        now = data.run_time()
        for arm, span in enumerate(spans):
            w = waiting.get(arm)
            if mode == WALL and w is not None and w.t0 is not None:
                span.setRegion((w.t0, max(now, w.t0)))
                span.setVisible(arm not in hidden)
            elif span.isVisible():
                span.hide()
        return True

    def hide(self, spans: list[pg.LinearRegionItem]) -> None:
        if self.text.isVisible():
            self.text.hide()
            self.moved()
        for span in spans:
            span.hide()

    def blocked(self) -> QRectF | None:
        """Where the line is, in the view box's pixels (None: not shown)."""
        if not self.text.isVisible():
            return None
        rect: QRectF = self.text.mapRectToParent(self.text.boundingRect())  # pyqtgraph: Any
        return rect

    def reserved_top(self, index: int) -> float:
        """What the crosshair's readout must stay under at the top of plot `index`."""
        if index != 0 or not self.text.isVisible():
            return 0.0
        return float(self.text.boundingRect().height()) + 2.0
