"""The step-time and throughput plots' y range: what the visible data spans, less its outliers.

pyqtgraph's auto-range fits every point, so one 30 ms step among 0.058 ms ones flattens the
curve into a line at the bottom. Here the range fits the points drawn, but no further than
Tukey's far fences of each curve's visible steps (its quartiles, 3 interquartile ranges out: past them
lies about 1 Gaussian point in 400,000, so noise stays inside and spikes do not), with a margin;
the points beyond are drawn clipped at the edge and marked (`clipped`), their real values on
hover: one marker per band of a marker's width (`thinned`: the furthest out, and how many it
stands for), not dozens crowding the edge.

The quartiles come from a fixed-size sample of the visible raw steps (`decimation.sample`), and
the extremes from the points drawn (already decimated): the cost does not grow with the run, and
spikes are left out however often they come (a spike in every column of a zoomed-out million
steps still leaves the range at the steps). On a log axis the same in decades (pyqtgraph's log
view units).
"""

from __future__ import annotations

import numpy as np

FENCE = 3.0  # interquartile ranges beyond the quartiles
MARGIN = 0.06  # of the span, below and above
TOP_ROOM = 0.08  # more above: room for the clipped points' markers
MIN_SPAN = 0.05  # of the value: steps of 0.058 ms +- 0.0001 are not drawn as wild swings
MIN_DECADES = 0.05
MOVE_FRACTION = 0.04  # a new range this close to the shown one is not applied (no axis redraw)
MAX_CLIPPED = 200  # markers per curve; the furthest out are kept


def _finite(arrays: list[np.ndarray], log: bool) -> np.ndarray:
    values = np.concatenate(arrays) if arrays else np.empty(0)
    values = values[np.isfinite(values)]
    if log:
        values = values[values > 0]
        return np.log10(values)
    return values


def _quartiles(values: np.ndarray) -> tuple[float, float]:
    """The lower and upper quartile (nearest rank) by one partition: np.percentile's first call
    imports a module of numpy's (~50 ms, in the middle of a redraw)."""
    n = len(values)
    k1, k3 = (n - 1) // 4, (3 * (n - 1)) // 4
    part = np.partition(values, (k1, k3))
    return float(part[k1]), float(part[k3])


def top_room_for(pixels: float, height: float) -> float:
    """The share of the span to add above (besides MARGIN) so that the top `pixels` of a view
    `height` px tall hold no data: the phase labels' rows and the clipped points' markers."""
    share = min(max(pixels, 0.0) / max(height, 1.0), 0.5)
    return max(TOP_ROOM, (share * (1 + 2 * MARGIN) - MARGIN) / (1 - share))


def robust_range(
    curves: list[tuple[np.ndarray, np.ndarray]], log: bool = False, top_room: float = TOP_ROOM
) -> tuple[float, float] | None:
    """(low, high) in view units holding every curve: each curve, a (sample of its visible raw
    steps, its decimated points drawn) pair, gives the extremes of what it draws within its own
    far fences (arms at different levels do not widen each other's fences). None when there is
    nothing to fit."""
    lows, highs = [], []
    for raw, drawn in curves:
        values = _finite([raw], log)
        shown = _finite([drawn], log)
        if len(values) == 0 or len(shown) == 0:
            continue
        q1, q3 = _quartiles(values)
        iqr = q3 - q1
        lo = max(float(shown.min()), float(q1 - FENCE * iqr))
        hi = min(float(shown.max()), float(q3 + FENCE * iqr))
        if hi < lo:
            lo, hi = float(q1), float(q3)
        lows.append(lo)
        highs.append(hi)
    if not lows:
        return None
    lo, hi = min(lows), max(highs)
    if log:
        span = max(hi - lo, MIN_DECADES)
        return lo - MARGIN * span, hi + (MARGIN + top_room) * span
    span = max(hi - lo, MIN_SPAN * abs(hi)) or 1.0
    low = lo - MARGIN * span
    if low < 0 <= lo:  # values that cannot be negative: the axis stops at 0
        low = 0.0
    return low, hi + (MARGIN + top_room) * span


def worth_moving(shown: tuple[float, float], new: tuple[float, float]) -> bool:
    """Whether `new` differs enough from the range shown to redraw the axis."""
    span = max(new[1] - new[0], 1e-12)
    return abs(new[0] - shown[0]) > MOVE_FRACTION * span or (
        abs(new[1] - shown[1]) > MOVE_FRACTION * span
    )


def clipped(
    x: np.ndarray, y: np.ndarray, low: float, high: float, log: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, above) of the points of a drawn curve outside [low, high] (view units): above is
    True for those over the top. At most MAX_CLIPPED, the furthest out kept."""
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.log10(y) if log else y
    above = v > high
    below = v < low
    out = np.flatnonzero(above | below)
    if len(out) > MAX_CLIPPED:
        distance = np.where(above[out], v[out] - high, low - v[out])
        out = np.sort(out[np.argpartition(distance, -MAX_CLIPPED)[-MAX_CLIPPED:]])
    return x[out], y[out], above[out]


def thinned(
    x: np.ndarray, y: np.ndarray, above: np.ndarray, band: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, above, count): the clipped points, one per `band` of x (a marker's width in view
    units) on each edge, the furthest out of its band, and how many points it stands for."""
    if len(x) == 0 or not band > 0:
        return x, y, above, np.ones(len(x), dtype=np.int64)
    column = np.floor(x / band).astype(np.int64)
    beyond = np.where(above, y, -y)  # larger: further out, on either edge
    order = np.lexsort((-beyond, column, above))  # by edge, band, furthest first
    key = np.stack([above[order], column[order]], axis=1)
    first = np.ones(len(order), dtype=bool)
    first[1:] = np.any(key[1:] != key[:-1], axis=1)
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, len(order)))
    keep = order[starts]
    by_x = np.argsort(x[keep], kind="stable")
    keep, counts = keep[by_x], counts[by_x]
    return x[keep], y[keep], above[keep], counts
