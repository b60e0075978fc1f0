"""Each arm's plot items and their styling: one colour per arm, pens 1 px wide, no antialiasing.

An arm has a curve per buffer (CURVES), a smoothed line over each smoothable one, its compile
markers, the triangles of its points beyond the y range, its compile spans and its compile-wait
span on the time axis, and its rank band. They are made when the arm first shows up in the
data (arms may join mid-run) and removed together when the plots are cleared.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem

from tcprof.app.plots.band import band_item
from tcprof.app.plots.smoothing import Smoothed

# (buffer name, plot index, pen style)
CURVES = (
    ("step_ms", 0, Qt.PenStyle.SolidLine),
    ("throughput", 1, Qt.PenStyle.SolidLine),
    ("loss", 1, Qt.PenStyle.SolidLine),
    ("own_ms", 1, Qt.PenStyle.SolidLine),
    ("rss_mb", 2, Qt.PenStyle.SolidLine),
    ("cuda_alloc_mb", 2, Qt.PenStyle.DashLine),
    ("cuda_reserved_mb", 2, Qt.PenStyle.DotLine),
)
PLOT_OF = {key: plot_index for key, plot_index, _ in CURVES}
PLOT_KEYS = tuple(tuple(k for k, p, _ in CURVES if p == index) for index in range(3))
SMOOTHED = ("step_ms", "throughput", "loss", "own_ms")  # the curves smoothing applies to
ROBUST = (0, 1)  # the plots whose y range ignores outliers (memory fits every point)
RAW_ALPHA = 70  # of 255: the raw curve under a smoothed one
SPAN_ALPHA = 45  # of 255: a compile's span on the time axis
MARKER_SIZE = 10  # px
CLIP_SIZE = 8  # px: the triangles of points beyond the y range

ClipTip = Callable[[float, float, object], str]


def _marker_tip(x: float, y: float, data: object) -> str:
    return str(data)


class ArmItems:
    """The items of every arm so far, by arm index, and what was last drawn into them."""

    def __init__(self, plots: list[pg.PlotItem]) -> None:
        self.plots = plots
        self.curves: list[dict[str, pg.PlotDataItem]] = []
        self.smooth: list[dict[str, pg.PlotDataItem]] = []
        self.smoothers: dict[tuple[int, str], Smoothed] = {}
        self.markers: list[pg.ScatterPlotItem] = []
        self.clips: list[dict[int, pg.ScatterPlotItem]] = []
        self.spans: list[list[pg.LinearRegionItem]] = []
        self.wait_spans: list[pg.LinearRegionItem] = []
        self.bands: list[QGraphicsPathItem] = []
        self.drawn: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
        self.clip_seen: dict[tuple[int, int], tuple[bytes, bytes, float, float]] = {}

    def __len__(self) -> int:
        return len(self.curves)

    def add(self, colour: QColor, clip_tip: Callable[[int, int], ClipTip]) -> None:
        """The next arm's items, in its colour; `clip_tip(arm, plot)` words its clipped points."""
        i = len(self.curves)
        curves, smooth = {}, {}
        for key, plot_index, style in CURVES:
            pen = pg.mkPen(colour, width=1, style=style)
            item = pg.PlotDataItem(
                pen=pen,
                connect="finite",  # a NaN breaks the line between sections
            )
            self.plots[plot_index].addItem(item)
            curves[key] = item
            if key in SMOOTHED:
                line = pg.PlotDataItem(pen=pen, connect="finite")
                line.setZValue(2)  # over every raw curve
                self.plots[plot_index].addItem(line)
                smooth[key] = line
                self.smoothers[(i, key)] = Smoothed()
        self.curves.append(curves)
        self.smooth.append(smooth)
        scatter = pg.ScatterPlotItem(
            size=MARKER_SIZE,
            pen=pg.mkPen(colour, width=1),
            brush=pg.mkBrush(colour),
            hoverable=True,
            hoverSize=14,
            tip=_marker_tip,
        )
        scatter.setZValue(10)
        self.plots[0].addItem(scatter, ignoreBounds=True)  # placed by place_compile_markers
        self.markers.append(scatter)
        clips = {}
        for index in ROBUST:
            clip = pg.ScatterPlotItem(
                size=CLIP_SIZE,
                pen=pg.mkPen(colour, width=1),
                brush=pg.mkBrush(colour),
                hoverable=True,
                hoverSize=12,
                tip=clip_tip(i, index),
            )
            clip.setZValue(11)
            self.plots[index].addItem(clip, ignoreBounds=True)
            clips[index] = clip
        self.clips.append(clips)
        self.spans.append([])
        wait = self.span_item(colour, 0.0, 0.0)
        wait.hide()
        self.wait_spans.append(wait)
        self.bands.append(band_item(colour))  # added to the plot once it has a spread

    def pen(self, arm: int, colour: QColor, smoothing: float) -> None:
        """Raw curves in full colour, or faint under their smoothed line while smoothing."""
        colour = QColor(colour)
        if smoothing > 0:
            colour.setAlpha(RAW_ALPHA)
        for key in SMOOTHED:
            self.curves[arm][key].setPen(pg.mkPen(colour, width=1))
            if smoothing <= 0:
                self.smooth[arm][key].setData([], [])

    def span_item(self, colour: QColor, t0: float, t1: float) -> pg.LinearRegionItem:
        """A shaded span of time on the step-time plot (a compile's, or a compile wait's)."""
        fill = QColor(colour)
        fill.setAlpha(SPAN_ALPHA)
        edge = QColor(colour)
        edge.setAlpha(110)
        span = pg.LinearRegionItem(
            values=(t0, t1), movable=False, brush=pg.mkBrush(fill), pen=pg.mkPen(edge)
        )
        span.setZValue(-8)
        self.plots[0].addItem(span, ignoreBounds=True)
        return span

    def show_middle(self, key: str) -> None:
        """The middle plot draws `key` now: its other curves are emptied."""
        for arm, curves in enumerate(self.curves):
            for other in PLOT_KEYS[1]:
                if other != key:
                    curves[other].setData([], [])
                    self.smooth[arm][other].setData([], [])
                    self.drawn.pop((arm, other), None)
        self.clip_seen = {k: v for k, v in self.clip_seen.items() if k[1] != 1}

    def items(self, arm: int) -> list[QGraphicsItem]:
        """Every item of one arm (none if it has none yet)."""
        if arm >= len(self.curves):
            return []
        items = [*self.curves[arm].values(), *self.smooth[arm].values()]
        items += [self.markers[arm], *self.clips[arm].values(), self.bands[arm]]
        items += [*self.spans[arm], self.wait_spans[arm]]
        return items

    def remove_spans(self) -> None:
        """The compile spans (placed again on the time axis at the next draw)."""
        for spans in self.spans:
            for span in spans:
                self.plots[0].removeItem(span)
            spans.clear()

    def clear(self) -> None:
        """Every arm's items out of the plots."""
        for curves, smooth in zip(self.curves, self.smooth, strict=True):
            for key, item in (*curves.items(), *smooth.items()):
                self.plots[PLOT_OF[key]].removeItem(item)
        for scatter in self.markers:
            self.plots[0].removeItem(scatter)
        for clips in self.clips:
            for index, clip in clips.items():
                self.plots[index].removeItem(clip)
        for spans in self.spans:
            for span in spans:
                self.plots[0].removeItem(span)
        for span in self.wait_spans:
            self.plots[0].removeItem(span)
        for band in self.bands:
            self.plots[0].removeItem(band)
        self.curves, self.smooth, self.markers, self.bands = [], [], [], []
        self.clips, self.spans, self.wait_spans, self.smoothers = [], [], [], {}
        self.drawn, self.clip_seen = {}, {}
