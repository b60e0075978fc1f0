"""Every figure with a unit, written one way: milliseconds, seconds, durations, sizes, percents,
ratios and counts, so a figure reads the same in the window, the terminal, both reports and the
trackers. The bottom floor (imports nothing of tcprof): every floor and the window use it.

The rules, for every function here:
- a figure that is missing (None), not a number, or not finite (NaN, infinity: JSON cannot hold
  them, so a session never means them) reads `MISSING` ("-");
- precision follows the size, never a fixed count of decimals that turns small figures into
  "0.00": three significant-ish digits (`ms`: 0.123 / 9.17 / 230), two decimals for seconds;
- thousands are separated by a comma ("14,100", "1,204 MB");
- a unit follows its figure after one space ("9.17 ms", "7.88 s", "1 min 40 s", "420 KB"), except
  the percent sign and the ratio's "×", which are part of the figure ("14%", "1.21×");
- a negative figure carries a real minus sign ("−8%", "−0.42 ms"), which reads as a number
  where "-8%" reads as a dash; a signed change writes its plus too ("+4%"), and "±0%" where it
  rounds to nothing.
"""

from __future__ import annotations

import math
from typing import Any

MISSING = "-"  # what every view writes where a figure is missing
MINUS = "\u2212"  # a real minus sign
TIMES = "\u00d7"  # the ratio's sign: "1.21×"


def number(value: Any) -> float | None:
    """A finite float, or None for what is no figure (None, a string, a bool, NaN, infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _signed(text: str, negative: bool, plus: bool = False) -> str:
    return (MINUS if negative else "+" if plus else "") + text


def ms(value: Any, unit: bool = True, plus: bool = False) -> str:
    """'9.17 ms': from 100 whole milliseconds ('1,204 ms'), from 1 two decimals ('9.17 ms'),
    below that three ('0.123 ms'); `unit=False` for a table column whose header says ms;
    `plus` for a signed change ('+0.412', '−1.20')."""
    v = number(value)
    if v is None:
        return MISSING
    a = abs(v)
    text = f"{a:,.0f}" if a >= 100 else f"{a:.2f}" if a >= 1 else f"{a:.3f}"
    text = _signed(text, v < 0 and float(text.replace(",", "")) != 0, plus)
    return f"{text} ms" if unit else text


def seconds(value: Any, unit: bool = True, plus: bool = False) -> str:
    """'7.88 s': two decimals (a compile cost, a first step, a timeout's figure), thousands
    separated ('1,234.50 s'); `unit=False` for a column whose header says s; `plus` for a
    signed change ('+1.20')."""
    v = number(value)
    if v is None:
        return MISSING
    text = f"{abs(v):,.2f}"
    text = _signed(text, v < 0 and text != "0.00", plus)
    return f"{text} s" if unit else text


def duration(value: Any) -> str:
    """A wall-clock span in words, to the second: '45 s', '1 min 40 s', '1 min', '2 h 5 min', '1 h';
    from five minutes on, seconds go in steps of five (no false precision). A negative span
    (clocks that moved) reads '0 s'."""
    v = number(value)
    if v is None:
        return MISSING
    s = max(0, round(v))
    if 300 <= s < 3600:
        s = round(s / 5) * 5
    if s < 60:
        return f"{s} s"
    if s < 3600:
        minutes, rest = divmod(s, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, rest = divmod(s, 3600)
    return f"{hours:,} h {rest // 60} min" if rest >= 60 else f"{hours:,} h"


def megabytes(value: Any) -> str:
    """A size given in MB, written with the unit that keeps its precision: '1,204 MB', '3.25 MB',
    '420 KB', '1.31 KB', '96 B' (an 11-parameter model's tensors are not '0.00 MB'); 1 MB is
    1024 KB, as torch and the OS count memory."""
    v = number(value)
    if v is None:
        return MISSING
    a = abs(v)
    if a >= 1:
        text = f"{a:,.0f} MB" if a >= 100 else f"{a:.2f} MB"
    elif a * 1024 >= 1:
        kb = a * 1024
        text = f"{kb:,.0f} KB" if kb >= 100 else f"{kb:.2f} KB"
    else:
        text = f"{a * 1024 * 1024:.0f} B"
    return _signed(text, v < 0 and not text.startswith("0 "))


def whole_megabytes(value: Any) -> str:
    """'1,204 MB': a process's peak RSS, always large enough for whole megabytes."""
    v = number(value)
    return MISSING if v is None else _signed(f"{abs(v):,.0f} MB", round(v) < 0)


def percent(fraction: Any, digits: int = 0) -> str:
    """A share as a percent: 0.14 -> '14%' (`digits` decimals; 0 by default)."""
    v = number(fraction)
    if v is None:
        return MISSING
    text = f"{abs(v) * 100:,.{digits}f}"
    return _signed(text, v < 0 and float(text.replace(",", "")) != 0) + "%"


def change(fraction: Any, digits: int = 0) -> str:
    """A signed change as a percent: 0.04 -> '+4%', -0.08 -> '−8%'; one that rounds to nothing
    at `digits` decimals: '±0%'."""
    v = number(fraction)
    if v is None:
        return MISSING
    text = f"{abs(v) * 100:,.{digits}f}"
    if float(text.replace(",", "")) == 0:
        return f"±{text}%"
    return _signed(text, v < 0, plus=True) + "%"


def ratio(value: Any) -> str:
    """A ratio such as a speedup, two decimals and its sign: '1.21×' ('1,204.00×' for a huge
    one)."""
    v = number(value)
    if v is None:
        return MISSING
    text = f"{abs(v):,.2f}"
    return _signed(text, v < 0 and text != "0.00") + TIMES


def ratio_span(low: Any, high: Any) -> str:
    """'1.21–1.30×' for ratios that differ at two decimals, '1.21×' for ones that do not."""
    lo, hi = ratio(low), ratio(high)
    if lo == hi or hi == MISSING:
        return lo
    if lo == MISSING:
        return hi
    return f"{lo.removesuffix(TIMES)}–{hi}"


def count(value: Any) -> str:
    """A count of steps, parameters, lines: whole, thousands separated: '14,100'."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _signed(f"{abs(value):,}", value < 0)  # exact, however large
    v = number(value)
    if v is None:
        return MISSING
    return _signed(f"{abs(v):,.0f}", round(v) < 0)


def rate(value: Any) -> str:
    """Work per second: whole from 100 ('2,048'), three significant digits below ('9.17',
    '0.412'), where a slow script's handful of samples per second keeps its precision."""
    v = number(value)
    if v is None:
        return MISSING
    text = f"{abs(v):,.0f}" if abs(v) >= 100 else f"{abs(v):.3g}"
    return _signed(text, v < 0 and float(text) != 0)


def short_count(value: Any) -> str:
    """A count short enough for a table cell: '9,800', '25k', '1.2M' (an interval's ends)."""
    v = number(value)
    if v is None:
        return MISSING
    a = abs(v)
    if a >= 1e6:
        text = f"{a / 1e6:,.1f}M"
    else:
        text = f"{a / 1e3:.0f}k" if a >= 1e4 else f"{a:,.0f}"
    return _signed(text, v < 0 and text != "0")
