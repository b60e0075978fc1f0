"""The verdict as the readers ask for it: the sentences and notes of a saved session (made once
by the model: model/verdict.py and model/notes.py), and the rules every view shares so the
window, `tcprof run` and the reports agree: when a speedup is coloured good or bad
(`speedup_tone`) and how memory against the baseline reads ("+14%", with "uses 14% more tensor
memory than eager" spelled out). Qt-free and torch-free.

The sentence functions take the typed model (`SessionModel`, `Arm`, `Row`); a session.json dict
is read into it first (`SessionModel.from_json`), by whoever holds the dict. The row
rules the model applies when it is built live in model/rules.py; the names many readers import
from here (speedup_interval, speedup_settled, NOT_SETTLED, bound_text, status_text, ...) are
re-exported below so that they need not change at once.
"""

from __future__ import annotations

from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.rules import NOT_SETTLED as NOT_SETTLED
from tcprof.profiler.model.rules import bound_text as bound_text
from tcprof.profiler.model.rules import change_words
from tcprof.profiler.model.rules import holds_after_adjustment as holds_after_adjustment
from tcprof.profiler.model.rules import is_partial as is_partial
from tcprof.profiler.model.rules import memory_words as memory_words
from tcprof.profiler.model.rules import one_round as one_round
from tcprof.profiler.model.rules import speedup_interval as speedup_interval
from tcprof.profiler.model.rules import speedup_settled as speedup_settled
from tcprof.profiler.model.rules import status_text as status_text
from tcprof.profiler.model.rules import steps_fraction as steps_fraction
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.model.verdict import BAD as BAD
from tcprof.profiler.model.verdict import GOOD as GOOD
from tcprof.profiler.model.verdict import NEUTRAL as NEUTRAL
from tcprof.profiler.model.verdict import NOT_AFTER_HOLM as NOT_AFTER_HOLM
from tcprof.profiler.model.verdict import ArmVerdict as ArmVerdict
from tcprof.profiler.model.verdict import arm_verdict as _arm_verdict
from tcprof.profiler.model.verdict import medians_note as _medians_note
from tcprof.profiler.model.verdict import session_verdicts as _session_verdicts
from tcprof.profiler.model.verdict import settle_hint as _settle_hint
from tcprof.profiler.protocol import units


def speedup_tone(row: Row) -> str:
    """good: the whole speedup interval is above 1; bad: below 1; neutral otherwise, and
    neutral for a difference the run's family-wise adjustment does not keep (the verdict
    beside it reads "(not after Holm)" in the neutral colour too)."""
    ci = row.speedup.interval if row.speedup else None
    if ci is None or ci.low is None or ci.high is None or not row.holds:
        return NEUTRAL
    if ci.low > 1.0:
        return GOOD
    if ci.high < 1.0:
        return BAD
    return NEUTRAL


def fmt_memory(row: Row) -> str:
    """'+14%' / '−8%' / '±0%' against the baseline, '-' when not measured."""
    change = row.memory.change
    if change is None:
        return "-"
    return units.change(change)


def memory_title(row: Row, baseline: str | None) -> str:
    """The memory cell's tooltip: each memory figure named, against the baseline."""
    memory = row.memory
    if memory.change is None:
        return "not measured"
    lines = [change_words(memory.change, memory.rss_change, baseline or "the baseline")]
    lines.append("tensor memory: the training tensors' steady peak")
    if memory.peak_rss_mb is not None:
        lines.append(
            f"process peak RSS: {units.whole_megabytes(memory.peak_rss_mb)} (includes the compiler)"
        )
    if memory.compile_peak_mb is not None:
        lines.append(
            f"peak while compiling (first step): {units.whole_megabytes(memory.compile_peak_mb)}"
        )
    return "\n".join(lines)


def partial_title(row: Row) -> str:
    """A partial figure's tooltip: why it is partial."""
    return (
        f"partial: one process measured {row.steps_measured or 0} of the "
        f"{row.steps_planned or '?'} steps asked of it before the run was cut short "
        "(Stop, a timeout, a crash or an interrupted run); the figures are from the steps it had"
    )


def mark_partial(text: str, row: Row) -> str:
    """'12.30' -> '12.30 (partial)' for a partial row's figures; '-' stays '-'."""
    return f"{text} (partial)" if row.partial and text != "-" else text


# ---- the sentences and notes of a saved session (the model makes them once) ------------------


def settle_hint(row: Row) -> str:
    """Why a speedup is not settled and what would settle it (model/verdict.py)."""
    return _settle_hint(row)


def medians_note(row: Row, baseline_row: Row | None) -> str | None:
    """Where the medians' ratio disagrees with the speedup, why (model/verdict.py)."""
    return _medians_note(row, baseline_row)


def arm_verdict(arm: Arm, stopped: bool) -> ArmVerdict:
    """The sentence for one compiled arm over all its batch sizes."""
    return _arm_verdict(arm, stopped)


def session_verdicts(session: SessionModel) -> list[ArmVerdict]:
    """One verdict per compiled arm (the baseline, other eager arms and the A/A controls
    have none), with the tone each is coloured in."""
    return _session_verdicts(session.arms, session.baseline, session.status, session.options.script)


def session_notes(session: SessionModel) -> list[str]:
    """What stands beside the verdicts: comparisons, flagged controls, an unbalanced schedule,
    contended blocks, what would settle each unsettled speedup."""
    return list(session.notes)


def verdict_lines(session: SessionModel) -> list[str]:
    return list(session.verdicts)
