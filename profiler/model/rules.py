"""The rules a saved row is read by, applied once when the model is built (row.py) and still
asked by the readers that hold a row's dict: which interval of the speedup is shown, whether it
is settled, a single round's speedup, a row's outcome in a word, memory against the baseline, a
partial row's status. They read a row of session.json (raw JSON: the builders' input), and sit
in the model's floor so that `analysis` above may read the typed records the model makes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tcprof.profiler.protocol import units

# An interval is settled (narrow enough to act on, and to quote its centre as a headline) when
# it exists (two or more paired rounds) and its high end over its low end is at most this.
# Every view asks `settled`; a run that stops once its intervals settle uses the same rule.
SETTLED_RATIO = 1.5

# The run's comparisons against the baseline, judged together: at most a 5% chance that any of
# their intervals misses (simultaneous, Bonferroni); a session saved before: each at 95%, Holm.
FAMILY_ALPHA = 0.05
LEVEL = 0.95  # each interval's own level
BONFERRONI = "bonferroni"

NO_INTERVAL = "no_interval"  # the verdict of one round: no interval, so neither faster nor slower
NOT_SETTLED = "not settled"


def settled(low: float | None, high: float | None) -> bool:
    """The one rule: an interval [low, high] whose high end is at most SETTLED_RATIO times its
    low end. None ends (no interval) are not settled."""
    if low is None or high is None or not (low > 0) or not math.isfinite(high):
        return False
    return high / low <= SETTLED_RATIO


def one_round(row: Mapping[str, Any]) -> bool:
    """A speedup from a single round: no interval (a bootstrap of one process's steps leaves
    process-to-process variation out; it read '0.42x [0.42–0.42]', certain of what it cannot
    know). Sessions saved before speedup_ci_one_process held that bootstrap as speedup_ci."""
    return row.get("speedup") is not None and (
        row.get("interval_covers_processes") is False or row.get("verdict") == NO_INTERVAL
    )


def speedup_interval(row: Mapping[str, Any]) -> tuple[float, float] | None:
    """The row's interval of the speedup as every view shows it: the simultaneous one the
    verdict uses (speedup_ci_simultaneous, at the run's family-wise level); a session saved
    before it, or a control's row, its 95% interval. None where it has none (one round)."""
    ci = row.get("speedup_ci_simultaneous") or row.get("speedup_ci")
    if one_round(row) or not isinstance(ci, list) or len(ci) != 2:
        return None
    low, high = ci
    if not isinstance(low, (int, float)) or not isinstance(high, (int, float)):
        return None
    return float(low), float(high)


def speedup_settled(row: Mapping[str, Any]) -> bool:
    """The speedup may stand as a headline: its interval exists and is settled (the one rule).
    An unsettled speedup is shown as "not settled" with its interval, never as a number to
    quote."""
    ci = speedup_interval(row)
    return ci is not None and settled(*ci)


def bound_text(bound: float) -> str:
    """An interval's end as the table and the verdict print it: two decimals, and "<0.01" or
    ">100" past them (two rounds' t interval can run from 0.0003 to 26,577: "0.00" would read
    as a figure, and five digits as a precision, that the interval does not have)."""
    if bound < 0.01:
        return "<0.01"
    if bound > 100:
        return ">100"
    return f"{bound:.2f}"


def holds_after_adjustment(row: Mapping[str, Any]) -> bool:
    """False for a faster or slower verdict that the family-wise adjustment does not keep."""
    return not (
        row.get("holds_after_adjustment") is False and row.get("verdict") in ("faster", "slower")
    )


def memory_change(row: Mapping[str, Any], key: str = "memory_ratio") -> float | None:
    """The arm's training-tensor memory (or with key="rss_ratio" its process's peak RSS)
    against the baseline's, as a fraction (+0.14: 14% more). The ratios in session.json are
    baseline / arm, which reads backwards."""
    ratio = row.get(key)
    if not isinstance(ratio, (int, float)) or not math.isfinite(ratio) or ratio <= 0:
        return None  # not measured, or a value JSON could not hold
    return 1.0 / ratio - 1.0


RSS_NOTICE = 0.05  # an RSS change this large is named beside a tensor figure that differs


def _change_words(change: float, what: str) -> str:
    if round(change * 100) == 0:
        return f"the same {what}"
    return f"{units.percent(abs(change))} {'more' if change > 0 else 'less'} {what}"


def memory_words(row: Mapping[str, Any], baseline: str | None = None) -> str | None:
    """'uses 14% more tensor memory', 'uses the same tensor memory (than eager), its process
    19% more RSS (the compiler and its code)': the training tensors, and the process's peak RSS
    (what the memory plot shows on CPU) wherever it tells another story."""
    change = memory_change(row)
    if change is None:
        return None
    return change_words(change, memory_change(row, "rss_ratio"), baseline)


def change_words(change: float, rss: float | None, baseline: str | None = None) -> str:
    """memory_words from the two changes themselves (a typed row's `Memory`)."""
    words = f"uses {_change_words(change, 'tensor memory')}"
    words += f" than {baseline}" if baseline else ""
    if rss is not None and abs(rss - change) >= RSS_NOTICE:
        words += f", its process {_change_words(rss, 'peak RSS')}"
        words += " (the compiler and its code)" if rss > change else ""
    return words


# ---- partial rows --------------------------------------------------------------------------


def is_partial(row: Mapping[str, Any]) -> bool:
    """A row whose measurement was cut short (rows saved before `partial` existed are not)."""
    return row.get("partial") is True


def steps_fraction(row: Mapping[str, Any]) -> str:
    """'12/50': the steps the cut-short process measured, of those asked of each process."""
    return f"{row.get('steps_measured') or 0}/{row.get('steps_planned') or '?'}"


def status_text(row: Mapping[str, Any]) -> str:
    """The row's status as every view shows it: 'stopped at 12/50' for a partial row."""
    status = str(row.get("status") or "?")
    if not is_partial(row):
        return status
    return f"{'stopped' if status == 'ok' else status} at {steps_fraction(row)}"


# ---- a row's outcome -----------------------------------------------------------------------


def outcome_kind(row: Mapping[str, Any]) -> str:
    """How the verdict sentence groups a row: faster, slower, noise, no_interval, fell_back,
    failed or unmeasured."""
    if row.get("status") in ("error", "oom"):
        return "failed"
    if row.get("fell_back"):
        return "fell_back"
    if one_round(row):
        return "no_interval"  # sessions saved before may say faster or slower: not without one
    return {"faster": "faster", "slower": "slower", "no_difference": "noise"}.get(
        row.get("verdict") or "", "unmeasured"
    )


# A row's outcome in a word or two, as the sentence groups rows (tcprof's Python API returns it:
# `session.verdict("inductor", 32)`); the baseline's own rows are the baseline.
OUTCOME_WORDS = {
    "faster": "faster",
    "slower": "slower",
    "noise": "no difference",
    "no_interval": "no interval",
    "fell_back": "fell back",
    "failed": "failed",
    "unmeasured": "not measured",
}
BASELINE = "baseline"


def row_outcome(row: Mapping[str, Any], baseline: bool = False) -> str:
    """'faster', 'slower', 'no difference', 'no interval', 'fell back', 'failed', 'not measured'
    (or 'baseline' for the baseline's rows): the verdict's word for one arm at one batch size."""
    if baseline and row.get("status") not in ("error", "oom"):
        return BASELINE
    return OUTCOME_WORDS[outcome_kind(row)]
