"""Exponential moving average of a growing series, as W&B and TensorBoard smooth a curve.

smoothed[i] = w * smoothed[i - 1] + (1 - w) * raw[i], restarted at each run of finite points
(a NaN, the break between sections or blocks, stays NaN and the next run starts at its own
first value). The weight w is 0 (off) to 0.99.

`Smoothed` keeps the smoothed copy of one buffer and extends it as the buffer grows: a redraw
costs only the new points (numpy, no Python loop over points), and a new weight recomputes
the whole buffer once (~10 ms for a million points). The smoothed points share the raw ones'
x, so the plots decimate them the same way.
"""

from __future__ import annotations

import math

import numpy as np

MAX_WEIGHT = 0.99


def _chunk_length(w: float) -> int:
    """Points per chunk of the closed form: w**-L stays far from overflowing."""
    if w <= 0.0:
        return 1 << 16
    return int(max(8, min(4096, 250.0 / -math.log10(w))))


def ema(x: np.ndarray, w: float, carry: float) -> np.ndarray:
    """EMA of finite x with weight w, continuing from `carry` (the value before x[0]).

    Chunks of L points take the closed form y[i] = w**(i+1) c + (1-w) w**i sum_j<=i w**-j x[j]
    (x is positive here: step times, throughputs, so the scaled sum loses no precision), all
    chunks at once; each chunk's carry is the previous chunk's last value, a loop over chunks
    of one multiply-add, not over points."""
    n = len(x)
    out = np.empty(n, dtype=np.float64)
    if n == 0:
        return out
    if w <= 0.0:
        out[:] = x
        return out
    length = min(_chunk_length(w), n)
    j = np.arange(length, dtype=np.float64)
    down = w**j  # w**i
    rows = -(-n // length)
    padded = np.zeros(rows * length, dtype=np.float64)
    padded[:n] = x
    local = padded.reshape(rows, length)
    local *= 1.0 / down  # w**-j
    np.cumsum(local, axis=1, out=local)
    local *= down * (1.0 - w)  # each chunk's EMA from a carry of 0
    # Each chunk's carry is the one before's last value: c[r] = last[r - 1] + w**L c[r - 1].
    carries = np.empty(rows, dtype=np.float64)
    q = w**length
    c = carry
    last = local[:, -1].tolist()
    for r in range(rows):
        carries[r] = c
        c = last[r] + q * c
    local += np.outer(carries, down * w)  # + w**(i+1) c
    out[:] = local.reshape(-1)[:n]
    return out


class Smoothed:
    """The EMA of one series, extended incrementally (see the module's docstring)."""

    def __init__(self) -> None:
        self.weight = 0.0
        self._y = np.empty(0, dtype=np.float64)
        self._done = 0
        self._last = math.nan  # the smoothed value of the last point done (NaN: a break)

    def values(self, y: np.ndarray, weight: float) -> np.ndarray:
        """The smoothed copy of y (the series' whole filled part), brought up to date."""
        weight = min(max(0.0, weight), MAX_WEIGHT)
        n = len(y)
        if weight != self.weight or n < self._done:
            self.weight, self._done, self._last = weight, 0, math.nan
        if n > len(self._y):
            grown = np.empty(max(n, 2 * len(self._y), 1024), dtype=np.float64)
            grown[: self._done] = self._y[: self._done]
            self._y = grown
        if n > self._done:
            self._extend(y[self._done : n], self._y[self._done : n])
            self._done = n
        return self._y[:n]

    def _extend(self, new: np.ndarray, out: np.ndarray) -> None:
        finite = np.isfinite(new)
        out[~finite] = np.nan
        edges = np.flatnonzero(np.diff(np.concatenate(([0], finite.astype(np.int8), [0]))))
        for start, end in zip(edges[::2], edges[1::2], strict=True):
            carry = self._last if start == 0 and math.isfinite(self._last) else float(new[start])
            out[start:end] = ema(new[start:end], self.weight, carry)
        self._last = float(out[-1]) if finite[-1] else math.nan
