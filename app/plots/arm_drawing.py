"""Drawing an arm's buffers into its items: only the visible part, on the current x axis.

Each curve gets only its visible part, peak-decimated to about two points per pixel
(`visible_peaks`), so a redraw costs the same however long the run. Smoothing decimates its
line the same way (a second `visible_peaks` per curve, only while smoothing is on).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsItem

from tcprof.app.plots.arm_items import (
    CLIP_SIZE,
    MARKER_SIZE,
    ROBUST,
    SMOOTHED,
    ArmItems,
    ClipTip,
)
from tcprof.app.plots.band import band_path
from tcprof.app.plots.contention import ContendedShading
from tcprof.app.plots.decimation import sample, visible_peaks, visible_range
from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.phase_guides import LABEL_ROW_PX, LABEL_ROWS
from tcprof.app.plots.series import Series
from tcprof.app.plots.x_axis import WALL, XAxis
from tcprof.app.plots.y_range import clipped, robust_range, thinned, top_room_for, worth_moving

MARKER_ROWS = 4  # arms' marker rows above the plot's bottom edge (then repeating)


def _pieces(
    s: Series,
    x: np.ndarray,
    a: int,
    b: int,
    offset: float,
    drawn: tuple[np.ndarray, np.ndarray],
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(a sample of the raw steps, the points drawn) of each section of points a..b-1 of a
    buffer: the y range fences each section apart, so that one arm's batch sizes (at different
    step times, side by side on the time axis) do not widen each other's fences."""
    _x, y = s.data()
    px, py = drawn
    bounds = [start for _key, start in s.marks if a < start < b]
    out = []
    for lo, hi in zip([a, *bounds], [*bounds, b], strict=True):
        if hi <= lo:
            continue
        k0 = int(np.searchsorted(px, x[lo] - offset, side="left"))
        k1 = int(np.searchsorted(px, x[hi - 1] - offset, side="right"))
        out.append((sample(y[lo:hi]), py[k0:k1]))
    return out


def draw_curve(
    items: ArmItems,
    arm: int,
    key: str,
    s: Series,
    data: LiveData,
    axis: XAxis,
    x0: float,
    x1: float,
    smoothing: float,
) -> None:
    """The visible part of one buffer on the current x axis, decimated; and its smoothed
    line, while smoothing is on."""
    x, i0, i1, offset = axis.span(data, s)
    _, y = s.data()
    xs, ys = x[i0:i1], y[i0:i1]
    px, py = visible_peaks(xs, ys, x0 + offset, x1 + offset)
    if offset:
        px = px - offset
    items.curves[arm][key].setData(px, py)
    items.drawn[(arm, key)] = (px, py)
    if key in SMOOTHED and smoothing > 0:
        smooth = items.smoothers[(arm, key)].values(y, smoothing)[i0:i1]
        sx, sy = visible_peaks(xs, smooth, x0 + offset, x1 + offset)
        items.smooth[arm][key].setData(sx - offset if offset else sx, sy)


def fit_y(
    items: ArmItems,
    vb: pg.ViewBox,
    data: LiveData,
    axis: XAxis,
    index: int,
    keys: tuple[str, ...],
    shown: list[int],
    x0: float,
    x1: float,
    log: bool,
) -> None:
    """Plot `index`'s y range: the points drawn for the shown arms, within the far fences of
    their visible steps (y_range.py); then the points beyond it, clipped at its edges and
    marked."""
    empty = (np.empty(0), np.empty(0))
    curves = []
    for i in shown:
        for key in keys:
            s = data.arms[i].series()[key]
            x, i0, i1, offset = axis.span(data, s)
            j0, j1 = visible_range(x[i0:i1], x0 + offset, x1 + offset)
            curves += _pieces(s, x, i0 + j0, i0 + j1, offset, items.drawn.get((i, key), empty))
    # the step-time plot's top holds the phase labels' rows: no data under them
    top = LABEL_ROWS * LABEL_ROW_PX + CLIP_SIZE if index == 0 else 0
    new = robust_range(curves, log, top_room_for(top, vb.height()))
    if new is not None and worth_moving(tuple(vb.viewRange()[1]), new):
        vb.setYRange(*new, padding=0)
    lo, hi = vb.viewRange()[1]
    inset = (hi - lo) * (CLIP_SIZE * 0.7) / max(vb.height(), 1.0)
    left, right = vb.viewRange()[0]
    band = (right - left) * CLIP_SIZE / max(vb.width(), 1.0)  # a marker's width
    for i in shown:
        parts = [clipped(*items.drawn.get((i, key), empty), lo, hi, log) for key in keys]
        cx, cy, up = (np.concatenate(column) for column in zip(*parts, strict=True))
        cx, cy, up, count = thinned(cx, cy, up, band)
        state = (cx.tobytes(), cy.tobytes(), lo, hi)
        if items.clip_seen.get((i, index)) == state:
            continue  # as drawn: a scatter's setData is not free
        items.clip_seen[(i, index)] = state
        scatter = items.clips[i][index]
        mixed = bool(up.any() and not up.all())
        scatter.setData(
            x=cx,
            y=np.where(up, hi - inset, lo + inset),
            symbol=np.where(up, "t1", "t").tolist() if mixed else ("t1" if up.any() else "t"),
            # the real values and how many points each marker stands for (the clip tip)
            data=[(v, int(n)) for v, n in zip(cy.tolist(), count.tolist(), strict=True)],
        )


def draw_band(
    items: ArmItems,
    arm: int,
    data: LiveData,
    axis: XAxis,
    x0: float,
    x1: float,
    log_y: bool,
) -> bool:
    """A distributed arm's rank spread as its band; False if it has none yet."""
    trace = data.arms[arm]
    if not trace.fastest_ms.n:
        return False
    x, i0, i1, offset = axis.span(data, trace.fastest_ms)
    _, fastest = trace.fastest_ms.data()
    _, slowest = trace.slowest_ms.data()
    xs = x[i0:i1]
    bx, low = visible_peaks(xs, fastest[i0:i1], x0 + offset, x1 + offset)
    _, high = visible_peaks(xs, slowest[i0:i1], x0 + offset, x1 + offset)
    if log_y:
        with np.errstate(divide="ignore", invalid="ignore"):
            low, high = np.log10(low), np.log10(high)
    band = items.bands[arm]
    if band.scene() is None:  # an empty band would pull the y range to 0
        items.plots[0].addItem(band, ignoreBounds=True)
    band.setPath(band_path(bx - offset if offset else bx, low, high))
    return True


def place_compile_markers(
    items: ArmItems, arm: int, data: LiveData, axis: XAxis, colour: QColor, hidden: set[int]
) -> None:
    """Arm `arm`'s compile markers at its own height near the bottom of the step-time plot;
    on the time axis, a span per compile as long as torch's compile timer."""
    trace = data.arms[arm]
    vb = items.plots[0].vb
    y0, y1 = vb.viewRange()[1]
    above_px = MARKER_SIZE * (0.8 + 1.2 * (arm % MARKER_ROWS))  # a row per arm, no overlap
    y = y0 + (y1 - y0) * above_px / max(vb.height(), 1.0)
    placed = [(x, m) for m in trace.markers if (x := axis.marker_x(data, m)) is not None]
    items.markers[arm].setData(
        x=[x for x, _m in placed],
        y=[y] * len(placed),
        data=[m.text for _x, m in placed],
        symbol=["t1" if m.kind == "recompile" else "o" for _x, m in placed],
    )
    if axis.mode != WALL:
        return
    spans = items.spans[arm]
    timed = [m for _x, m in placed if m.t0 is not None and m.t1 is not None]
    while len(spans) > len(timed):
        items.plots[0].removeItem(spans.pop())
    for k, m in enumerate(timed):
        if k < len(spans):
            spans[k].setRegion((m.t0, m.t1))
        else:
            spans.append(items.span_item(colour, m.t0, m.t1))  # type: ignore[arg-type]
        spans[k].setToolTip(m.text)
        spans[k].setVisible(arm not in hidden)


class ArmDrawing:
    """What each arm's items last showed (its buffers' versions), and bringing one plot's items
    up to date with the data: only the buffers that changed are drawn again."""

    def __init__(self, items: ArmItems, contention: ContendedShading) -> None:
        self.items = items
        self.contention = contention
        self.seen: dict[tuple[int, str], int] = {}
        self.marker_seen: list[int] = []
        self.band_seen: dict[int, int] = {}

    def add_arms(
        self,
        count: int,
        colours: list[QColor],
        smoothing: float,
        hidden: set[int],
        clip_tip: Callable[[int, int], ClipTip],
    ) -> None:
        """Items for the arms that joined (up to `count`), hidden if the legend hid them."""
        for i in range(len(self.items), count):
            self.items.add(colours[i], clip_tip)
            self.marker_seen.append(-1)
            self.items.pen(i, colours[i], smoothing)
            if i in hidden:
                for item in self.arm_items(i):
                    item.setVisible(False)

    def arm_items(self, arm: int) -> list[QGraphicsItem]:
        """Every item of one arm, its contended blocks' included."""
        if arm >= len(self.items):
            return []
        return [*self.items.items(arm), *self.contention.items(arm)]

    def invalidate(self) -> None:
        """Every curve and band is drawn again at the next draw (the x range, or a setting,
        changed)."""
        self.seen = {}
        self.band_seen = {}

    def replace_markers(self, arm: int | None = None) -> None:
        """Place one arm's compile markers again at the next draw (None: every arm's, and every
        contended block, their compile spans removed: the x axis changed)."""
        if arm is not None:
            if arm < len(self.marker_seen):
                self.marker_seen[arm] = -1
            return
        self.marker_seen = [-1] * len(self.marker_seen)
        self.contention.invalidate()
        self.items.remove_spans()

    def clear(self) -> None:
        self.seen, self.marker_seen, self.band_seen = {}, [], {}

    def draw(
        self,
        index: int,
        data: LiveData,
        axis: XAxis,
        colours: list[QColor],
        hidden: set[int],
        keys: tuple[str, ...],
        smoothing: float,
        log_y: bool,
        band_drawn: Callable[[], None],
    ) -> tuple[bool, bool]:
        """setData once per curve of plot `index` whose buffer changed since it was last drawn,
        then (step time, throughput) the y range and the clipped points. Returns whether
        anything changed, and whether any curve was drawn."""
        items = self.items
        x0, x1 = items.plots[0].viewRange()[0]
        changed = drawn = False
        for i, trace in enumerate(data.arms):
            if i in hidden:
                continue
            series = trace.series()
            for key in keys:
                s = series[key]
                if self.seen.get((i, key)) == s.version or s.n == 0:
                    continue
                self.seen[(i, key)] = s.version
                draw_curve(items, i, key, s, data, axis, x0, x1, smoothing)
                drawn = True
            if index == 0 and self.marker_seen[i] != trace.markers_version:
                self.marker_seen[i] = trace.markers_version
                place_compile_markers(items, i, data, axis, colours[i], hidden)
                changed = True
            if index == 0 and self.band_seen.get(i) != trace.fastest_ms.version:
                self.band_seen[i] = trace.fastest_ms.version
                if draw_band(items, i, data, axis, x0, x1, log_y):
                    band_drawn()
                changed = True
        if index == 0:
            changed |= self.contention.draw(data, axis, colours, hidden)
        if drawn and index in ROBUST:
            shown = [i for i in range(len(data.arms)) if i not in hidden and i < len(items.clips)]
            log = log_y and index == 0
            fit_y(items, items.plots[index].vb, data, axis, index, keys, shown, x0, x1, log)
        return changed, drawn

    def place_markers(
        self, data: LiveData, axis: XAxis, colours: list[QColor], hidden: set[int]
    ) -> None:
        """Keep each arm's markers at its height as the y range follows the data."""
        for arm, trace in enumerate(data.arms[: len(self.items.markers)]):
            if trace.markers:
                place_compile_markers(self.items, arm, data, axis, colours[arm], hidden)
