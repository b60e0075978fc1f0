"""The verdict: one sentence per compiled arm that says what compiling bought, read before any
table ("inductor is 1.21× faster at bs 8 [1.17–1.28], pays back its 32.00 s compile after 14,100
steps, uses 14% more tensor memory, accuracy pass").

Also the rules every view shares so the window, `tcprof run` and the reports agree: when a
speedup is coloured good or bad (`speedup_tone`) and how memory against the baseline reads
("+14%", with "uses 14% more tensor memory than eager" spelled out). Qt-free and torch-free.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.analysis.stats import NO_INTERVAL, SETTLED_RATIO, settled
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.event_text import phase_words

GOOD, BAD, NEUTRAL = "good", "bad", "neutral"


def speedup_tone(row: dict[str, Any]) -> str:
    """good: the whole speedup interval is above 1; bad: below 1; neutral otherwise, and
    neutral for a difference the run's family-wise adjustment does not keep (the verdict
    beside it reads "(not after Holm)" in the neutral colour too)."""
    ci = speedup_interval(row)
    if not ci or not holds_after_adjustment(row):
        return NEUTRAL
    if ci[0] > 1.0:
        return GOOD
    if ci[1] < 1.0:
        return BAD
    return NEUTRAL


# ---- the headline's rule: every view asks these ------------------------------------------------


def one_round(row: dict[str, Any]) -> bool:
    """A speedup from a single round: no interval (a bootstrap of one process's steps leaves
    process-to-process variation out; it read '0.42x [0.42–0.42]', certain of what it cannot
    know). Sessions saved before speedup_ci_one_process held that bootstrap as speedup_ci."""
    return row.get("speedup") is not None and (
        row.get("interval_covers_processes") is False or row.get("verdict") == NO_INTERVAL
    )


def speedup_interval(row: dict[str, Any]) -> tuple[float, float] | None:
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


def speedup_settled(row: dict[str, Any]) -> bool:
    """The speedup may stand as a headline: its interval exists and is settled (stats.settled,
    the one rule). An unsettled speedup is shown as "not settled" with its interval, never as
    a number to quote."""
    ci = speedup_interval(row)
    return ci is not None and settled(*ci)


NOT_SETTLED = "not settled"


def settle_hint(row: dict[str, Any]) -> str:
    """Why a speedup is not settled and what would settle it: 'one round: run 2 or more rounds
    (--replicates)'; 'its interval [0.55–43.92] spans 80× (settled: at most 1.5×): more rounds or
    steps, or a quieter machine (12/30 blocks contended)'."""
    ci = speedup_interval(row)
    if ci is None:
        return "one round: no interval; run 2 or more rounds (--replicates) to get one"
    low, high = ci
    span = units.ratio(high / low) if low > 0 else "without bound"
    text = (
        f"its interval [{bound_text(low)}–{bound_text(high)}] spans {span} "
        f"(settled: at most {units.ratio(SETTLED_RATIO)}); more rounds (--replicates) or steps would settle "
        "it, or a quieter machine"
    )
    contended = max(row.get("contended_blocks") or 0, row.get("unquiet_blocks") or 0)
    if contended:
        text += f" ({contended}/{row.get('blocks_measured') or '?'} blocks ran contended)"
    return text


MEDIANS_FAR = 1.1  # medians' ratio this far from the centre (either way) is explained


def medians_note(row: dict[str, Any], baseline_row: dict[str, Any] | None) -> str | None:
    """Where the ratio of the two medians disagrees with the speedup (outside its interval, or
    over 10% from its centre), why: the speedup pairs each round's processes and averages the
    rounds' log ratios; the medians of medians pair nothing, so rounds that disagree pull them
    apart. The centre is not named where the speedup is not settled."""
    base = (baseline_row or {}).get("median_ms")
    arm, centre = row.get("median_ms"), row.get("speedup")
    if not isinstance(base, (int, float)) or not isinstance(arm, (int, float)) or arm <= 0:
        return None
    if not isinstance(centre, (int, float)) or centre <= 0:
        return None
    ratio = base / arm
    ci = speedup_interval(row)
    outside = ci is not None and not ci[0] <= ratio <= ci[1]
    if not outside and max(ratio / centre, centre / ratio) <= MEDIANS_FAR:
        return None
    where = "lie outside the interval" if outside else "differ from the speedup"
    if speedup_settled(row):
        where += f" ({_x(centre)})"
    return (
        f"the medians ({units.ms(base, unit=False)} / {units.ms(arm)}, a ratio of "
        f"{units.ratio(ratio)}) {where}: the speedup "
        "pairs each round's processes and averages the rounds' ratios, and rounds that disagree "
        "this much pull the medians apart"
    )


def memory_change(row: dict[str, Any], key: str = "memory_ratio") -> float | None:
    """The arm's training-tensor memory (or with key="rss_ratio" its process's peak RSS)
    against the baseline's, as a fraction (+0.14: 14% more). The ratios in session.json are
    baseline / arm, which reads backwards."""
    ratio = row.get(key)
    if not isinstance(ratio, (int, float)) or not math.isfinite(ratio) or ratio <= 0:
        return None  # not measured, or a value JSON could not hold
    return 1.0 / ratio - 1.0


def _pct(fraction: float) -> str:
    return units.percent(abs(fraction))


def fmt_memory(row: dict[str, Any]) -> str:
    """'+14%' / '−8%' / '±0%' against the baseline, '-' when not measured."""
    change = memory_change(row)
    if change is None:
        return "-"
    return units.change(change)


RSS_NOTICE = 0.05  # an RSS change this large is named beside a tensor figure that differs


def _change_words(change: float, what: str) -> str:
    if round(change * 100) == 0:
        return f"the same {what}"
    return f"{_pct(change)} {'more' if change > 0 else 'less'} {what}"


def memory_words(row: dict[str, Any], baseline: str | None = None) -> str | None:
    """'uses 14% more tensor memory', 'uses the same tensor memory (than eager), its process
    19% more RSS (the compiler and its code)': the training tensors, and the process's peak RSS
    (what the memory plot shows on CPU) wherever it tells another story."""
    change = memory_change(row)
    if change is None:
        return None
    words = f"uses {_change_words(change, 'tensor memory')}"
    words += f" than {baseline}" if baseline else ""
    rss = memory_change(row, "rss_ratio")
    if rss is not None and abs(rss - change) >= RSS_NOTICE:
        words += f", its process {_change_words(rss, 'peak RSS')}"
        words += " (the compiler and its code)" if rss > change else ""
    return words


def memory_title(row: dict[str, Any], baseline: str | None) -> str:
    """The memory cell's tooltip: each memory figure named, against the baseline."""
    words = memory_words(row, baseline or "the baseline")
    if words is None:
        return "not measured"
    lines = [words]
    lines.append("tensor memory: the training tensors' steady peak")
    if row.get("peak_rss_mb") is not None:
        lines.append(
            f"process peak RSS: {units.whole_megabytes(row['peak_rss_mb'])} (includes the compiler)"
        )
    if row.get("compile_peak_mb") is not None:
        lines.append(
            f"peak while compiling (first step): {units.whole_megabytes(row['compile_peak_mb'])}"
        )
    return "\n".join(lines)


# ---- partial rows --------------------------------------------------------------------------


def is_partial(row: dict[str, Any]) -> bool:
    """A row whose measurement was cut short (rows saved before `partial` existed are not)."""
    return row.get("partial") is True


def steps_fraction(row: dict[str, Any]) -> str:
    """'12/50': the steps the cut-short process measured, of those asked of each process."""
    return f"{row.get('steps_measured') or 0}/{row.get('steps_planned') or '?'}"


def status_text(row: dict[str, Any]) -> str:
    """The row's status as every view shows it: 'stopped at 12/50' for a partial row."""
    status = str(row.get("status") or "?")
    if not is_partial(row):
        return status
    return f"{'stopped' if status == 'ok' else status} at {steps_fraction(row)}"


def partial_title(row: dict[str, Any]) -> str:
    """A partial figure's tooltip: why it is partial."""
    return (
        f"partial: one process measured {row.get('steps_measured') or 0} of the "
        f"{row.get('steps_planned') or '?'} steps asked of it before the run was cut short "
        "(Stop, a timeout, a crash or an interrupted run); the figures are from the steps it had"
    )


def mark_partial(text: str, row: dict[str, Any]) -> str:
    """'12.30' -> '12.30 (partial)' for a partial row's figures; '-' stays '-'."""
    return f"{text} (partial)" if is_partial(row) and text != "-" else text


# ---- the verdict sentence --------------------------------------------------------------------


@dataclass(frozen=True)
class ArmVerdict:
    """One compiled arm's sentence and how it should be coloured (good / bad / neutral)."""

    arm: str
    text: str
    tone: str


def _x(value: float) -> str:
    return units.ratio(value)


ONE_ROUND = "one round: no interval yet"  # a single round's speedup, in every view


def _interval(row: dict[str, Any]) -> str:
    """' [1.02–1.18]'; ' [1.02–1.18] (not after Holm)' when the run's family-wise adjustment
    does not keep the difference, as the table says beside the same figure; an unsettled
    interval says so."""
    ci = speedup_interval(row)
    if ci is None:
        return f" ({ONE_ROUND})"
    text = f" [{bound_text(ci[0])}–{bound_text(ci[1])}]"
    if not settled(*ci):
        text += f" ({NOT_SETTLED})"
    if not holds_after_adjustment(row):
        text += f" ({NOT_AFTER_HOLM})"
    return text


def _figure(row: dict[str, Any]) -> str:
    """'1.21× ' for a settled speedup; nothing for one that is not (no number to quote)."""
    return f"{_x(row['speedup'])} " if speedup_settled(row) else ""


NOT_AFTER_HOLM = "not after Holm"


def bound_text(bound: float) -> str:
    """An interval's end as the table and the verdict print it: two decimals, and "<0.01" or
    ">100" past them (two rounds' t interval can run from 0.0003 to 26,577: "0.00" would read
    as a figure, and five digits as a precision, that the interval does not have)."""
    if bound < 0.01:
        return "<0.01"
    if bound > 100:
        return ">100"
    return f"{bound:.2f}"


def holds_after_adjustment(row: dict[str, Any]) -> bool:
    """False for a faster or slower verdict that the family-wise adjustment does not keep."""
    return not (
        row.get("holds_after_adjustment") is False and row.get("verdict") in ("faster", "slower")
    )


def _sizes(rows: list[dict[str, Any]]) -> str:
    """'bs 8, 16 (stopped at 12/50)': a partial size says so where its figure is given."""
    return "bs " + ", ".join(
        f"{r['batch_size']} ({status_text(r)})" if is_partial(r) else str(r["batch_size"])
        for r in rows
    )


def _seconds(value: float) -> str:
    return units.seconds(value)


def _steps(value: float) -> str:
    return units.count(value)


def _payback(row: dict[str, Any]) -> str | None:
    """'pays back its 32.00 s compile after 14,100 steps [9,800–25,000]' (cold cache), 'does not
    pay back its 32.00 s compile within noise' (the speedup's interval contains 1.0) or 'never
    pays back' (slower)."""
    compile_s = row.get("compile_cold_s")
    steps_key, ci_key = "break_even_cold_steps", "break_even_cold_ci"
    if compile_s is None:
        compile_s, steps_key, ci_key = row.get("compile_s"), "break_even_steps", "break_even_ci"
    if compile_s is None:
        return None
    steps, ci = row.get(steps_key), row.get(ci_key)
    at = f" at bs {row['batch_size']}" if row.get("_named") else ""
    cost = f"{_seconds(compile_s)} compile"
    extra = row.get("first_step_extra_s")
    if isinstance(extra, (int, float)) and extra >= 0.005:  # break-even counts it too
        cost += f" (and the {_seconds(extra)} its first step paid beyond compiling)"
    if row.get("verdict") == "no_difference" or not holds_after_adjustment(row):
        return f"does not pay back its {cost} within noise{at}"
    if one_round(row):
        return f"its {cost} has no break-even without an interval{at}"
    if steps is None:
        return f"never pays back its {cost}"
    span = ""
    if ci and ci[0] is not None:
        span = (
            f" [{_steps(ci[0])}–{_steps(ci[1])}]"
            if ci[1] is not None
            else f" [{_steps(ci[0])}–never]"
        )
    return f"pays back its {cost} after {_steps(steps)} steps{span}{at}"


def _error_text(row: dict[str, Any]) -> str:
    """Why it failed, whole: a cause cut mid-parenthesis reads as a different one."""
    err = row.get("error") or {}
    return " ".join(str(err.get("message") or row.get("status") or "error").split())


def _classify(row: dict[str, Any]) -> str:
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


def row_outcome(row: dict[str, Any], baseline: bool = False) -> str:
    """'faster', 'slower', 'no difference', 'no interval', 'fell back', 'failed', 'not measured'
    (or 'baseline' for the baseline's rows): the verdict's word for one arm at one batch size."""
    if baseline and row.get("status") not in ("error", "oom"):
        return BASELINE
    return OUTCOME_WORDS[_classify(row)]


EACH_UP_TO = 4  # batch sizes named one by one; more are given as a range


def _headline(kind: str, rows: list[dict[str, Any]]) -> str:
    """The part of the sentence for a group of batch sizes with the same outcome: every size's
    figure with its interval, or (beyond EACH_UP_TO sizes) their range; never only the best."""
    if kind in ("faster", "slower"):  # a partial size is named with its steps (_sizes)
        kept = [r for r in rows if speedup_settled(r)]  # only settled figures are quoted
        lo = min((r["speedup"] for r in kept), default=None)
        hi = max((r["speedup"] for r in kept), default=None)
        span = f"{_x(lo)}–{_x(hi)}" if lo is not None and hi is not None else NOT_SETTLED
        if len(kept) < len(rows) and kept:
            span += f", {NOT_SETTLED} at {_sizes([r for r in rows if r not in kept])}"
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
        loose = [r for r in rows if not speedup_settled(r)]
        note = f" ({NOT_SETTLED} at {_sizes(loose)})" if loose and len(loose) < len(rows) else ""
        note = f" ({NOT_SETTLED})" if loose and not note else note
        return f"no difference beyond noise at {_sizes(rows)}{note}"
    if kind == "no_interval":
        return f"no interval yet at {_sizes(rows)} (one round: run 2 or more rounds)"
    if kind == "fell_back":
        return f"fell back to eager at {_sizes(rows)}"
    if kind == "failed":
        return "; ".join(f"failed at bs {r['batch_size']}: {_error_text(r)}" for r in rows)
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


def arm_verdict(arm: dict[str, Any], stopped: bool) -> ArmVerdict:
    """The sentence for one compiled arm over all its batch sizes."""
    name = str(arm.get("name"))
    rows = [r for r in arm.get("results") or [] if isinstance(r.get("batch_size"), int)]
    if not rows:
        err = arm.get("error") or {}
        if err:
            message = " ".join(str(err.get("message") or err.get("kind") or "error").split())
            return ArmVerdict(name, f"{name} failed: {message}", BAD)
        return ArmVerdict(name, f"{name}: nothing was measured", NEUTRAL)
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(_classify(r), []).append(r)
    kinds = [k for k in ORDER if k in groups]
    parts = [_headline(k, groups[k]) for k in kinds]
    measured = [r for r in rows if _classify(r) in ("faster", "slower", "noise", "no_interval")]
    lead = measured[0] if measured else rows[0]  # the first size: payback and memory
    if len(rows) > 1:
        lead = {**lead, "_named": True}
    # a failed row measured no speedup: its compile neither pays back nor fails to
    payback = _payback(lead) if measured else None
    extras = [payback, memory_words(lead) and f"{memory_words(lead)}{_at(lead)}"]
    accuracy = [(r.get("accuracy") or {}).get("status") for r in rows]
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
    cut = [r for r in rows if is_partial(r)]
    text = f"{name} {VERB.get(kinds[0], '')}" + ", ".join(parts + [e for e in extras if e])
    if cut:
        text += " (partial: cut short before every step was measured)"
    elif stopped:
        text += " (partial: the run was stopped before every step was measured)"
    if failed or "failed" in groups:
        tone = BAD  # a faster arm that is wrong or broken somewhere is not a win
    elif any(holds_after_adjustment(r) for r in groups.get("faster", [])):
        tone = GOOD  # a win only where it survives the run's family-wise adjustment
    elif any(holds_after_adjustment(r) for r in groups.get("slower", [])) or "fell_back" in groups:
        tone = BAD
    else:
        tone = NEUTRAL
    return ArmVerdict(name, text, tone)


def _at(row: dict[str, Any]) -> str:
    return f" at bs {row['batch_size']}" if row.get("_named") else ""


def is_control(arm: dict[str, Any]) -> bool:
    """An A/A control arm (its rows name the twin they copy)."""
    return any(r.get("aa_of") for r in arm.get("results") or [])


def session_verdicts(session: dict[str, Any]) -> list[ArmVerdict]:
    """One verdict per compiled arm (the baseline, other eager arms and the A/A controls
    have none: a control is a check of the harness, whose word is `control_notes`)."""
    arms = session.get("arms") or []
    baseline = session.get("baseline") or (arms[0].get("name") if arms else None)
    stopped = session.get("status") in ("stopped", "timeout", "interrupted")
    verdicts = [
        arm_verdict(a, stopped)
        for i, a in enumerate(arms)
        if i and a.get("backend") != "eager" and a.get("name") != baseline and not is_control(a)
    ]
    script = (session.get("config") or {}).get("script")
    if isinstance(script, dict):
        verdicts = [ArmVerdict(v.arm, _script_words(v.text, script), v.tone) for v in verdicts]
    return verdicts


def _script_words(text: str, script: dict[str, Any]) -> str:
    """A script's phases are its sweep's values ('at seq 64, 128'), and a script without a
    sweep has one phase, which the sentence need not name."""
    sweep = script.get("sweep")
    if sweep and sweep != "batch_size":
        return re.sub(r"\bbs (?=\d)", f"{sweep} ", text)
    if sweep:
        return text
    return re.sub(r" (?:at|failed at) bs \d+\b", "", text)


def _signed_pct(ratio: float) -> str:
    return units.change(ratio - 1.0)


def control_notes(session: dict[str, Any]) -> list[str]:
    """A sentence per flagged A/A control row: the harness itself differs between identical
    arms, so differences below that deserve care."""
    out = []
    for arm in session.get("arms") or []:
        for row in arm.get("results") or []:
            ci = row.get("aa_ci")
            if not row.get("aa_flagged") or not ci or row.get("aa_speedup") is None:
                continue
            low, high = sorted((ci[0] - 1.0, ci[1] - 1.0), key=abs)
            out.append(
                f"the harness itself differs by {_signed_pct(row['aa_speedup'])} "
                f"[{units.percent(abs(low))}–{units.percent(abs(high))}] between identical arms "
                f"({arm.get('name')} against {row['aa_of']}, bs {row.get('batch_size')}): "
                "treat differences below that with care"
            )
    return out


def session_notes(session: dict[str, Any]) -> list[str]:
    """What stands beside the verdicts: how many comparisons were made (and what Holm's
    adjustment kept), flagged controls, and an unbalanced schedule."""
    from tcprof.profiler.analysis.comparisons import comparisons_text

    notes = [comparisons_text(session.get("comparisons")), *control_notes(session)]
    notes.append((session.get("schedule") or {}).get("note"))
    notes.append(contention_note(session))
    notes += headline_notes(session)
    return [n for n in notes if n]


def headline_notes(session: dict[str, Any]) -> list[str]:
    """Beside each compiled arm's unsettled speedup, what would settle it; beside any speedup,
    medians that disagree with it, explained ('inductor at bs 8: not settled: …')."""
    arms = session.get("arms") or []
    baseline = session.get("baseline") or (arms[0].get("name") if arms else None)
    base_rows = {
        r.get("batch_size"): r for a in arms if a.get("name") == baseline for r in a["results"]
    }
    out = []
    script = (session.get("config") or {}).get("script")
    for arm in arms:
        if arm.get("name") == baseline or is_control(arm):
            continue
        for row in arm.get("results") or []:
            if row.get("speedup") is None or row.get("status") in ("error", "oom"):
                continue
            phase = phase_words(row.get("batch_size"), script)  # a script has no 'bs 1'
            where = f"{arm.get('name')} at {phase}" if phase else str(arm.get("name"))
            if not speedup_settled(row):
                out.append(f"{where}: {NOT_SETTLED}: {settle_hint(row)}")
            note = medians_note(row, base_rows.get(row.get("batch_size")))
            if note:
                out.append(f"{where}: {note}")
    return out


def contention_note(session: dict[str, Any]) -> str | None:
    """'eager at bs 8: 4 of 30 blocks ran while other processes kept the machine busy …'."""
    hit = [
        (arm.get("name"), r.get("batch_size"), slowed, r.get("blocks_measured") or "?")
        for arm in session.get("arms") or []
        for r in arm.get("results") or []
        if (slowed := max(r.get("contended_blocks") or 0, r.get("unquiet_blocks") or 0))
    ]
    if not hit:
        return None
    where = ", ".join(f"{name} at bs {bs}: {n}/{of}" for name, bs, n, of in hit[:4])
    more = f" and {len(hit) - 4} more" if len(hit) > 4 else ""
    text = (
        f"blocks contended ({where}{more}): other processes kept the machine busy while they "
        "ran, which slows steps unevenly; the intervals include them, a quieter machine gives "
        "tighter ones"
    )
    script = (session.get("config") or {}).get("script")
    return _script_words(text, script) if script else text


def verdict_lines(session: dict[str, Any]) -> list[str]:
    return [v.text for v in session_verdicts(session)]
