"""A number field's lowest value, taken from the bound its run option is declared with
(profiler/config/limits.py, the Limit that `tcprof run` and tcprof.run refuse a value by), so
the window cannot hold a number the engine would refuse (a setup that brings one is clamped and
the number named, core_options.not_fitting)."""

from __future__ import annotations

from PySide6.QtWidgets import QDoubleSpinBox, QSpinBox

from tcprof.profiler.config.limits import LIMIT_OF


def lowest(spin: QSpinBox | QDoubleSpinBox, field: str) -> float:
    """The lowest value `spin` can show that the bound of RunConfig.`field` allows: the bound
    itself, or one of the field's smallest steps above it where the bound is excluded."""
    limit = LIMIT_OF[field]
    if not limit.strict:
        return limit.low
    step = 1.0 if isinstance(spin, QSpinBox) else 10.0 ** -spin.decimals()
    return limit.low + step


def hold_to_bound(spin: QSpinBox | QDoubleSpinBox, field: str, high: float) -> None:
    """`spin`'s range: from the lowest value the field's declared bound allows to `high`."""
    low = lowest(spin, field)
    if isinstance(spin, QSpinBox):
        spin.setRange(int(low), int(high))
    else:
        spin.setRange(low, high)
