"""The summary table's cells in words: a row's speedup, verdict, compile cost, break-even,
status and accuracy, one rule for every view (the terminal, both reports, the window's table
and its insight tabs)."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.analysis.verdict import NOT_AFTER_HOLM
from tcprof.profiler.model.figures import Interval
from tcprof.profiler.model.row import Accuracy, Row
from tcprof.profiler.protocol import units


def fmt_speedup(row: Row) -> str:
    """'1.21x [1.17-1.28]' for a settled speedup; 'not settled [0.55-43.92]' for one whose
    interval is too wide to act on (analysis.stats.settled), and 'not settled (one round: no
    interval)' for a single round: the model's Speedup says it, one rule for every view."""
    speedup = row.speedup
    return "-" if speedup is None else str(speedup)


def fmt_accuracy(row: Row) -> str:
    acc = row.accuracy
    return "-" if acc is None else acc.status


def _err(value: Any) -> str:
    """An error size; None is one JSON could not hold (infinite: the tensors did not compare)."""
    return f"{value:.3g}" if isinstance(value, (int, float)) else "not finite"


def accuracy_title(acc: Accuracy) -> str:
    """The accuracy verdict's detail: the worst tensor and why (schema 1: loss and grad norm).
    The worst tensor is kept raw (model/raw.py), and so is a schema 1 check's four figures."""
    saved = acc.data  # schema 1's four figures, as saved
    if "worst" not in saved:
        return (
            f"loss {saved.get('loss')} vs {saved.get('baseline_loss')}; grad norm "
            f"{saved.get('grad_norm')} vs {saved.get('baseline_grad_norm')}"
        )
    worst = acc.worst or {}
    text = acc.reason or ""
    if worst:
        text = (
            f"worst: {worst.get('name')} (max abs err {_err(worst.get('max_abs_err'))}, "
            f"max rel err {_err(worst.get('max_rel_err'))}). {text}"
        )
    return str(text).strip()


VERDICT_TEXT = {
    "faster": "faster",
    "slower": "slower",
    "no_difference": "within noise",
    "no_interval": "one round",
    "unknown": "-",
}


def _holds(row: Row) -> bool:
    """False for a faster or slower verdict that the family-wise adjustment does not keep."""
    held = row.speedup.holds_after_adjustment if row.speedup else None
    return not (held is False and row.interval_verdict in ("faster", "slower"))


def _one_round(row: Row) -> bool:
    """A speedup from a single round (analysis.verdict.one_round, on the typed row)."""
    speedup = row.speedup
    return speedup is not None and (
        speedup.covers_processes is False or row.interval_verdict == "no_interval"
    )


def fmt_verdict(row: Row) -> str:
    """'faster'; 'faster (not after Holm)' when the run's family-wise adjustment does not keep
    it; an A/A control's row: 'A/A ok' or 'A/A +4%' (flagged: the harness is biased)."""
    r = row
    if r.control_of:
        speedup = r.speedup
        if speedup and speedup.control_flagged and r.control_speedup is not None:
            return f"A/A {units.change(r.control_speedup - 1)} (flagged)"
        return "A/A ok" if speedup and speedup.control_interval else "-"
    verdict = "no_interval" if _one_round(r) else r.interval_verdict or "unknown"
    text = VERDICT_TEXT.get(verdict, "-")
    if not _holds(r):
        text += f" ({NOT_AFTER_HOLM})"
    return text


TIMER_STANDS_IN = "torch's compile timer"


def _compile_seconds(value: float | None) -> str:
    return units.seconds(value, unit=False)


def fmt_compile(row: Row) -> str:
    """'cold / warm' seconds; a session of schema 1 has one figure (compile_s); an arm that
    failed before a steady step: '4.67 (torch's compile timer)', the figure that stands in."""
    cost = row.compile
    if cost is None:
        return units.seconds(None, unit=False)
    if cost.cold_s is None and cost.warm_s is None:
        if cost.first_s is None and cost.timer_s is not None:
            return f"{units.seconds(cost.timer_s, unit=False)} ({TIMER_STANDS_IN})"
        return units.seconds(cost.first_s, unit=False)
    if cost.warm_s is None:
        return _compile_seconds(cost.cold_s)
    return f"{_compile_seconds(cost.cold_s)} / {_compile_seconds(cost.warm_s)}"


def _steps(value: float | None, ci: Interval | None = None) -> str:
    """'14,100 [9,800–25k]': break-even steps with their interval; 'never' where none comes."""
    if value is None:
        return "never"
    if ci is None or ci.low is None:
        return units.count(value)
    high = "never" if ci.high is None else units.short_count(ci.high)
    return f"{units.count(value)} [{units.short_count(ci.low)}–{high}]"


def fmt_break_even(row: Row, is_baseline: bool) -> str:
    """'14,100 [9,800–25k] / 1,200 [800–2,100]' (cold / warm, each with its interval from the
    speedup's); 'within noise' where the speedup's interval contains 1.0; 'never' if slower."""
    r = row
    cost = r.compile
    if is_baseline or cost is None or cost.first_s is None or r.speedup is None:
        return "-"  # no speedup (an arm or its baseline failed): nothing to pay back with
    if not _holds(r):
        return "within noise"  # a difference the family-wise adjustment does not keep
    cold_and_warm = "break_even_cold_steps" in r.data  # schema 1 saved one break-even
    if r.interval_verdict == "no_difference" and cold_and_warm:
        return "within noise"
    if _one_round(r):
        return "no interval"  # a break-even from one round's speedup would claim what it lacks
    if not cold_and_warm:
        return _steps(cost.break_even_steps)
    cold = cost.cold_s is not None
    text = _steps(cost.break_even_steps if cold else None, cost.break_even if cold else None)
    if cost.warm_s is None:
        return text
    return f"{text} / {_steps(cost.warm_break_even_steps, cost.warm_break_even)}"


def failed_status(row: Row) -> str:
    """'error after 2 steps (first step 14.37 s)': a failed row keeps what it ran before
    failing; the steps when the worker counted them, the first step when it was timed."""
    r = row
    status = status_of(r)
    if r.status not in ("error", "oom"):
        return status
    steps = r.error.steps_run if r.error else None
    if steps is not None and steps > 0:
        status += f" after {steps} step{'s' if steps != 1 else ''}"
    if r.first_step_ms is not None:
        status += f" (first step {units.seconds(r.first_step_ms / 1000)})"
    return status


def status_of(row: Row) -> str:
    """The row's status as every view shows it: 'stopped at 12/50' for a partial row
    (analysis.verdict.status_text, on the typed row)."""
    if not row.partial:
        return row.status
    fraction = f"{row.steps_measured or 0}/{row.steps_planned or '?'}"
    return f"{'stopped' if row.status == 'ok' else row.status} at {fraction}"


def training_mb(row: Row) -> float | None:
    """The steady training peak (schema 2); schema 1 sessions only have peak RSS/CUDA."""
    r = row
    if "steady_peak_mb" in r.data:  # schema 2 saves it, null where it was not measured
        return r.memory.steady_peak_mb
    return r.memory.peak_cuda_mb or r.memory.peak_rss_mb


def contention_text(row: Row) -> str:
    """' (3/30 blocks contended)': blocks a neighbour slowed (the machine busy elsewhere while
    they ran, or the run's other processes busy when they began); empty when none was."""
    r = row
    if not r.blocks_contended:
        return ""
    return f" ({r.blocks_contended}/{r.blocks_measured or '?'} blocks contended)"
