"""The machine's own speed during a row's blocks, from the readings each block's worker took
before and after it (worker/machine_speed.py: a fixed matrix product's time).

A steady machine's two readings agree within a few percent (199-213 us over half a minute on
this project's machine); a block whose readings differ by more than STEADY_TOLERANCE ran while
the machine's speed moved, which no interval of one run can see coming: it is counted and named,
as contended blocks are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

STEADY_TOLERANCE = 0.15


def _reading(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def moved(block: Mapping[str, Any]) -> bool:
    """Whether the machine's speed moved during a block beyond a steady machine's readings."""
    before, after = _reading(block.get("reference_us")), _reading(block.get("reference_after_us"))
    if before is None or after is None:
        return False
    return abs(after / before - 1.0) > STEADY_TOLERANCE


def reading_range(blocks: Iterable[Mapping[str, Any]]) -> list[float] | None:
    """[fastest, slowest] reading over the blocks (us); None where no block read it."""
    readings = [
        r
        for b in blocks
        for r in (_reading(b.get("reference_us")), _reading(b.get("reference_after_us")))
        if r is not None
    ]
    return [min(readings), max(readings)] if readings else None
