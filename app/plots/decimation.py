"""The part of a long curve worth handing to pyqtgraph: what is visible, peak-decimated; and a
sample of it for the y range."""

from __future__ import annotations

import numpy as np

MAX_POINTS = 2000  # per curve handed to pyqtgraph: about two per horizontal pixel
SAMPLE_POINTS = 2048  # per curve, for the y range's quartiles
GOLDEN = 0.6180339887498949


def visible_range(x: np.ndarray, x0: float, x1: float) -> tuple[int, int]:
    """[i0, i1): the points inside [x0, x1] and one either side (so lines reach the edges)."""
    i0 = max(0, int(np.searchsorted(x, x0, side="left")) - 1)
    i1 = min(len(x), int(np.searchsorted(x, x1, side="right")) + 1)
    return i0, i1


def sample(y: np.ndarray, count: int = SAMPLE_POINTS) -> np.ndarray:
    """At most `count` of y's values, spread over all of it without a regular stride (a
    golden-ratio sequence of indices, so a spike every k steps is neither always nor never
    picked): cheap quantiles of the visible data, the same from one redraw to the next."""
    n = len(y)
    if n <= count:
        return y
    index = (np.arange(count) * GOLDEN * n).astype(np.int64) % n
    return y[index]


def visible_peaks(
    x: np.ndarray, y: np.ndarray, x0: float, x1: float, max_points: int = MAX_POINTS
) -> tuple[np.ndarray, np.ndarray]:
    """The part of a curve inside [x0, x1], peak-decimated (min and max per bin) to at most
    about max_points points. x must be non-decreasing (steps arrive in order).

    Doing this here costs a binary search plus one numpy min/max pass over the visible
    points; handing pyqtgraph a million points instead made each redraw ~70 ms."""
    i0, i1 = visible_range(x, x0, x1)
    xs, ys = x[i0:i1], y[i0:i1]
    n = len(xs)
    if n <= max_points:
        return xs, ys
    bins = max_points // 2
    k = n // bins
    m = bins * k
    yb = ys[:m].reshape(bins, k)
    out_y = np.empty(2 * bins + (n - m))
    out_x = np.empty_like(out_y)
    out_y[0 : 2 * bins : 2] = yb.min(axis=1)
    out_y[1 : 2 * bins : 2] = yb.max(axis=1)
    # Each bin's min at its first point's x and its max at its middle point's: x is steps or
    # seconds, so positions come from x itself, never from the index.
    out_x[0 : 2 * bins : 2] = xs[:m:k]
    out_x[1 : 2 * bins : 2] = xs[(k - 1) // 2 : m : k]
    out_x[2 * bins :] = xs[m:]
    out_y[2 * bins :] = ys[m:]
    return out_x, out_y
