"""The part of a long curve worth handing to pyqtgraph: what is visible, peak-decimated."""

from __future__ import annotations

import numpy as np

MAX_POINTS = 2000  # per curve handed to pyqtgraph: about two per horizontal pixel


def visible_peaks(
    x: np.ndarray, y: np.ndarray, x0: float, x1: float, max_points: int = MAX_POINTS
) -> tuple[np.ndarray, np.ndarray]:
    """The part of a curve inside [x0, x1], peak-decimated (min and max per bin) to at most
    about max_points points. x must be non-decreasing (steps arrive in order).

    Doing this here costs a binary search plus one numpy min/max pass over the visible
    points; handing pyqtgraph a million points instead made each redraw ~70 ms."""
    i0 = max(0, int(np.searchsorted(x, x0, side="left")) - 1)
    i1 = min(len(x), int(np.searchsorted(x, x1, side="right")) + 1)
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
    xb = xs[:m:k]
    out_x[0 : 2 * bins : 2] = xb
    out_x[1 : 2 * bins : 2] = xb + (k - 1) * 0.5
    out_x[2 * bins :] = xs[m:]
    out_y[2 * bins :] = ys[m:]
    return out_x, out_y
