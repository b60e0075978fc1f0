"""The verdict: one sentence per compiled arm that says what compiling bought, read before any
table ("inductor is 1.21× faster at bs 8 [1.17–1.28], pays back its 32.00 s compile after 14,100
steps, uses 14% more tensor memory, accuracy pass"), and the notes that stand beside it (the
comparisons made, flagged controls, contended blocks, what would settle a speedup, medians that
disagree with it). Written over the typed records and made once when the model is built
(`SessionModel.verdicts`, `Arm.verdict`, `SessionModel.notes`), so every view says the same.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.rules import (
    NOT_SETTLED,
    SETTLED_RATIO,
    bound_text,
    settled,
)
from tcprof.profiler.protocol import units

GOOD, BAD, NEUTRAL = "good", "bad", "neutral"
ONE_ROUND = "one round: no interval yet"  # a single round's speedup, in every view
NOT_AFTER_HOLM = "not after Holm"
EACH_UP_TO = 4  # batch sizes named one by one; more are given as a range
MEDIANS_FAR = 1.1  # medians' ratio this far from the centre (either way) is explained


@dataclass(frozen=True)
class ArmVerdict:
    """One compiled arm's sentence and how it should be coloured (good / bad / neutral)."""

    arm: str
    text: str
    tone: str


def _x(value: float) -> str:
    return units.ratio(value)


def shown_interval(row: Row) -> tuple[float, float] | None:
    """The speedup's interval as every view shows it (rules.speedup_interval, typed)."""
    ci = row.speedup.interval if row.speedup else None
    if ci is None or ci.low is None or ci.high is None:
        return None
    return ci.low, ci.high


def _settled(row: Row) -> bool:
    return row.speedup is not None and row.speedup.settled


def settle_hint(row: Row) -> str:
    """Why a speedup is not settled and what would settle it: 'one round: run 2 or more rounds
    (--replicates)'; 'its interval [0.55–43.92] spans 80× (settled: at most 1.5×): more rounds or
    steps, or a quieter machine (12/30 blocks contended)'."""
    ci = shown_interval(row)
    if ci is None:
        return "one round: no interval; run 2 or more rounds (--replicates) to get one"
    low, high = ci
    span = units.ratio(high / low) if low > 0 else "without bound"
    text = (
        f"its interval [{bound_text(low)}–{bound_text(high)}] spans {span} "
        f"(settled: at most {units.ratio(SETTLED_RATIO)}); more rounds (--replicates) or steps would settle "
        "it, or a quieter machine"
    )
    if row.blocks_contended:
        text += f" ({row.blocks_contended}/{row.blocks_measured or '?'} blocks ran contended)"
    return text


def medians_note(row: Row, baseline_row: Row | None) -> str | None:
    """Where the ratio of the two medians disagrees with the speedup (outside its interval, or
    over 10% from its centre), why: the speedup pairs each round's processes and averages the
    rounds' log ratios; the medians of medians pair nothing, so rounds that disagree pull them
    apart. The centre is not named where the speedup is not settled."""
    base = baseline_row.median_ms if baseline_row else None
    arm, centre = row.median_ms, row.speedup.value if row.speedup else None
    if base is None or arm is None or arm <= 0 or centre is None or centre <= 0:
        return None
    ratio = base / arm
    ci = shown_interval(row)
    outside = ci is not None and not ci[0] <= ratio <= ci[1]
    if not outside and max(ratio / centre, centre / ratio) <= MEDIANS_FAR:
        return None
    where = "lie outside the interval" if outside else "differ from the speedup"
    if _settled(row):
        where += f" ({_x(centre)})"
    return (
        f"the medians ({units.ms(base, unit=False)} / {units.ms(arm)}, a ratio of "
        f"{units.ratio(ratio)}) {where}: the speedup "
        "pairs each round's processes and averages the rounds' ratios, and rounds that disagree "
        "this much pull the medians apart"
    )


# ---- the verdict sentence --------------------------------------------------------------------


def _interval(row: Row) -> str:
    """' [1.02–1.18]'; ' [1.02–1.18] (not after Holm)' when the run's family-wise adjustment
    does not keep the difference, as the table says beside the same figure; an unsettled
    interval says so."""
    ci = shown_interval(row)
    if ci is None:
        return f" ({ONE_ROUND})"
    text = f" [{bound_text(ci[0])}–{bound_text(ci[1])}]"
    if not settled(*ci):
        text += f" ({NOT_SETTLED})"
    if not row.holds:
        text += f" ({NOT_AFTER_HOLM})"
    return text


def _figure(row: Row) -> str:
    """'1.21× ' for a settled speedup; nothing for one that is not (no number to quote)."""
    return f"{_x(row.speedup.value)} " if row.speedup and row.speedup.settled else ""


def _sizes(rows: Sequence[Row]) -> str:
    """'bs 8, 16 (stopped at 12/50)': a partial size says so where its figure is given."""
    return "bs " + ", ".join(
        f"{r.batch_size} ({r.status_text})" if r.partial else str(r.batch_size) for r in rows
    )


def payback(row: Row, named: bool = False) -> str | None:
    """'pays back its 32.00 s compile after 14,100 steps [9,800–25,000]' (cold cache), 'does not
    pay back its 32.00 s compile within noise' (the speedup's interval contains 1.0) or 'never
    pays back' (slower). `named`: the arm has several sizes, so this one is named."""
    cost_of = row.compile
    compile_s = None if cost_of is None else cost_of.cold_s
    if cost_of is not None and compile_s is None:
        compile_s = cost_of.first_s
    if cost_of is None or compile_s is None:
        return None
    steps, ci = cost_of.break_even_steps, cost_of.break_even
    at = f" at bs {row.batch_size}" if named else ""
    cost = f"{units.seconds(compile_s)} compile"
    extra = cost_of.first_step_extra_s
    if extra is not None and extra >= 0.005:  # break-even counts it too
        cost += f" (and the {units.seconds(extra)} its first step paid beyond compiling)"
    if row.interval_verdict == "no_difference" or not row.holds:
        return f"does not pay back its {cost} within noise{at}"
    if row.outcome == "no_interval" and row.speedup is not None:  # rules.one_round
        return f"its {cost} has no break-even without an interval{at}"
    if steps is None:
        return f"never pays back its {cost}"
    span = ""
    if ci and ci.low is not None:
        span = (
            f" [{units.count(ci.low)}–{units.count(ci.high)}]"
            if ci.high is not None
            else f" [{units.count(ci.low)}–never]"
        )
    return f"pays back its {cost} after {units.count(steps)} steps{span}{at}"


def _error_text(row: Row) -> str:
    """Why it failed, whole: a cause cut mid-parenthesis reads as a different one."""
    message = row.error.message if row.error else None
    return " ".join((message or row.status or "error").split())


def _headline(kind: str, rows: list[Row]) -> str:
    """The part of the sentence for a group of batch sizes with the same outcome: every size's
    figure with its interval, or (beyond EACH_UP_TO sizes) their range; never only the best."""
    if kind in ("faster", "slower"):  # a partial size is named with its steps (_sizes)
        kept = [r for r in rows if _settled(r)]  # only settled figures are quoted
        figures = [r.speedup.value for r in kept if r.speedup]
        lo, hi = min(figures, default=None), max(figures, default=None)
        span = f"{_x(lo)}–{_x(hi)}" if lo is not None and hi is not None else NOT_SETTLED
        if len(kept) < len(rows) and kept:
            span += f", {NOT_SETTLED} at {_sizes([r for r in rows if not _settled(r)])}"
        if kind == "faster":
            if len(rows) > EACH_UP_TO:
                return (
                    f"{span} faster at {_sizes(rows)}"
                    if kept
                    else f"faster at {_sizes(rows)} ({span})"
                )
            if len({(_figure(r), _interval(r)) for r in rows}) == 1:  # said once
                return f"{_figure(rows[0])}faster at {_sizes(rows)}{_interval(rows[0])}"
            first, *rest = rows
            head = f"{_figure(first)}faster at {_sizes([first])}{_interval(first)}"
            tail = [f"{_figure(r)}at {_sizes([r])}{_interval(r)}" for r in rest]
            return " and ".join([head, ", ".join(tail)]) if tail else head
        if len(rows) > EACH_UP_TO:
            return f"slower at {_sizes(rows)} ({span})"
        if len({(_figure(r), _interval(r)) for r in rows}) == 1:  # said once
            return f"slower at {_sizes(rows)} ({_figure(rows[0])}{_interval(rows[0]).strip()})"
        return "slower at " + ", ".join(
            f"{_sizes([r])} ({_figure(r)}{_interval(r).strip()})" for r in rows
        )
    if kind == "noise":
        loose = [r for r in rows if not _settled(r)]
        note = f" ({NOT_SETTLED} at {_sizes(loose)})" if loose and len(loose) < len(rows) else ""
        note = f" ({NOT_SETTLED})" if loose and not note else note
        return f"no difference beyond noise at {_sizes(rows)}{note}"
    if kind == "no_interval":
        return f"no interval yet at {_sizes(rows)} (one round: run 2 or more rounds)"
    if kind == "fell_back":
        return f"fell back to eager at {_sizes(rows)}"
    if kind == "failed":
        return "; ".join(f"failed at bs {r.batch_size}: {_error_text(r)}" for r in rows)
    return f"not measured at {_sizes(rows)}"


# The verb that joins the arm's name to its first outcome.
VERB = {
    "faster": "is ",
    "slower": "is ",
    "noise": "shows ",
    "no_interval": "has ",
    "unmeasured": "was ",
}
ORDER = ("faster", "slower", "noise", "no_interval", "fell_back", "failed", "unmeasured")
MEASURED = ("faster", "slower", "noise", "no_interval")


def arm_verdict(arm: Arm, stopped: bool) -> ArmVerdict:
    """The sentence for one compiled arm over all its batch sizes."""
    name, rows = arm.name, list(arm.rows)
    if not rows:
        if arm.error:
            message = " ".join((arm.error.message or arm.error.kind or "error").split())
            return ArmVerdict(name, f"{name} failed: {message}", BAD)
        return ArmVerdict(name, f"{name}: nothing was measured", NEUTRAL)
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(r.outcome, []).append(r)
    kinds = [k for k in ORDER if k in groups]
    parts = [_headline(k, groups[k]) for k in kinds]
    measured = [r for r in rows if r.outcome in MEASURED]
    lead = measured[0] if measured else rows[0]  # the first size: payback and memory
    named = len(rows) > 1
    at = f" at bs {lead.batch_size}" if named else ""
    # a failed row measured no speedup: its compile neither pays back nor fails to
    extras = [payback(lead, named) if measured else None]
    extras.append(lead.memory.words and f"{lead.memory.words}{at}")
    accuracy = [r.accuracy.status if r.accuracy else None for r in rows]
    failed = [r for r, s in zip(rows, accuracy, strict=True) if s == "fail"]
    unsure = [r for r, s in zip(rows, accuracy, strict=True) if s == "nondeterministic"]
    if failed:
        extras.append(f"accuracy fail at {_sizes(failed)}")
    elif "pass" in accuracy:
        extras.append("accuracy pass" + (f" (not judged at {_sizes(unsure)})" if unsure else ""))
    if unsure and (failed or "pass" not in accuracy):
        extras.append(
            f"accuracy not judged at {_sizes(unsure)}: two eager runs differ "
            "(the model is nondeterministic, not the compiler wrong)"
        )
    text = f"{name} {VERB.get(kinds[0], '')}" + ", ".join(parts + [e for e in extras if e])
    if any(r.partial for r in rows):
        text += " (partial: cut short before every step was measured)"
    elif stopped:
        text += " (partial: the run was stopped before every step was measured)"
    return ArmVerdict(name, text, _tone(groups, bool(failed)))


def _tone(groups: Mapping[str, list[Row]], wrong: bool) -> str:
    if wrong or "failed" in groups:
        return BAD  # a faster arm that is wrong or broken somewhere is not a win
    if any(r.holds for r in groups.get("faster", [])):
        return GOOD  # a win only where it survives the run's family-wise adjustment
    if any(r.holds for r in groups.get("slower", [])) or "fell_back" in groups:
        return BAD
    return NEUTRAL


def is_control(arm: Arm) -> bool:
    """An A/A control arm (its rows name the twin they copy)."""
    return any(r.control_of for r in arm.rows)


def session_verdicts(
    arms: Sequence[Arm], baseline: str | None, status: str, script: Any
) -> list[ArmVerdict]:
    """One verdict per compiled arm (the baseline, other eager arms and the A/A controls
    have none: a control is a check of the harness, whose word is `control_notes`)."""
    stopped = status in ("stopped", "timeout", "interrupted")
    verdicts = [
        arm_verdict(a, stopped)
        for i, a in enumerate(arms)
        if i and a.backend != "eager" and a.name != baseline and not is_control(a)
    ]
    if script is not None:
        verdicts = [ArmVerdict(v.arm, script_words(v.text, script), v.tone) for v in verdicts]
    return verdicts


def script_words(text: str, script: Any) -> str:
    """A script's phases are its sweep's values ('at seq 64, 128'), and a script without a
    sweep has one phase, which the sentence need not name (`script`: the run's ScriptSource,
    `SessionModel.options.script`, or that as saved)."""
    sweep = script.get("sweep") if isinstance(script, Mapping) else getattr(script, "sweep", None)
    if sweep and sweep != "batch_size":
        return re.sub(r"\bbs (?=\d)", f"{sweep} ", text)
    if sweep:
        return text
    return re.sub(r" (?:at|failed at) bs \d+\b", "", text)
