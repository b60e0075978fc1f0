"""Each compile of a batch size's cold round in the words every view shares (the window's
Compile time tab, report.html, report.md): when it ran, what triggered it, its time and share,
and a total row equal to the compile cost; what the first step paid beyond compiling as a part
of its own; the first step checked against its wall-clock excess; a sentence saying where
the compiles ran, so a compile before training is seen to be counted; and inductor's
once-per-machine CPU check, said and left out.

From the row's `compiles_list`, `compile_check` and `first_step_extra_s` (session.json);
sessions saved before these were recorded have none, and nothing is listed for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tcprof.profiler.analysis.user_words import plain_reason
from tcprof.profiler.config import records_cudagraphs
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.compiles import Compile
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.compile_terms import COMPILE_COST, frame_label
from tcprof.profiler.report.data import short_where
from tcprof.profiler.report.sections.script import phase_text, script_of

HEADER = ["when", "triggered by", "frame", "s", "share"]
TOTAL = f"total: the {COMPILE_COST}"
EXTRA = "first step beyond compiling"
WHEN_HELP = (
    "before training: before the first step's training forward (an evaluation, a warm-up "
    "forward, a compiled helper); in step N: that step's forward, backward or optimizer step "
    "(steps counted from 0, the first step, as in Recompiles); in an evaluation: between "
    "steps, under torch.no_grad() or with the model in eval mode"
)


def compiles(row: Row) -> list[Compile]:
    return list(row.compiles)


def extra_words(row: Row, arm: Arm | None) -> str:
    """What the first step paid beyond compiling was: CUDA graph recording only where the arm's
    mode records them at this batch size (not on a CPU run, where Inductor skips them, nor
    under a mode without them), else lazy initialisation."""
    skipped = arm is not None and row.batch_size in arm.cudagraph_skipped
    if records_cudagraphs(arm.mode if arm else None, skipped):
        return "lazy initialisation, CUDA graph recording"
    return "lazy initialisation"


def extra_help(row: Row, arm: Arm | None) -> str:
    return (
        f"what the first step paid beyond torch's compile events ({extra_words(row, arm)}, "
        "first allocations): not in the compile cost, counted in break-even"
    )


def when_text(c: Compile) -> str:
    """'before training', 'in the first step', 'in step 7', 'in an evaluation after 4 steps'."""
    when, at = c.when, c.at_step
    if when == "before_training":
        return "before training"
    if when == "evaluation":
        return f"in an evaluation after {at} steps" if at else "in an evaluation"
    if when == "first_step" or not at:
        return "in the first step"
    return f"in step {at}"


def _call(c: Compile) -> str:
    """The call in the user's code that compiled, else the compiled frame's place."""
    if c.site_file:
        return short_where(c.site_file, c.site_line)
    return short_where(c.file, c.line)


def _shapes(c: Compile) -> str:
    return ", ".join("(" + ", ".join(str(d) for d in s) + ")" for s in c.shapes)


def trigger_text(c: Compile) -> str:
    """'eval_first.py:30 under no_grad, shapes (16, 8)': the call, its grad mode, the shapes."""
    parts = [_call(c)]
    if c.grad_mode is not None:
        parts.append("under no_grad" if c.grad_mode is False else "with gradients")
    text = " ".join(parts)
    shapes = _shapes(c)
    return f"{text}, shapes {shapes}" if shapes else text


def _extra(row: Row) -> float | None:
    """What the first step paid beyond compiling, when it is worth a line (5 ms or more)."""
    extra = row.compile.first_step_extra_s if row.compile else None
    return extra if extra is not None and extra >= 0.005 else None


def rows(row: Row, arm: Arm | None = None) -> list[list[str]]:
    """The table's cells: one row per compile, the total (the compile cost) and, when the first
    step paid more than compiling, that part of its own (`arm`: the row's arm, whose mode says
    whether that part recorded CUDA graphs). Empty without a list."""
    listed = row.compiles
    if not listed:
        return []
    out = [
        [
            when_text(c),
            trigger_text(c),
            frame_label(c.frame),
            units.seconds(c.seconds or 0.0, unit=False),
            units.percent(c.share),
        ]
        for c in listed
    ]
    total = sum(c.seconds or 0.0 for c in listed)
    out.append([TOTAL, f"{len(listed)} compile(s)", "", units.seconds(total, unit=False), "100%"])
    extra = _extra(row)
    if extra is not None:
        out.append([EXTRA, extra_words(row, arm), "", units.seconds(extra, unit=False), ""])
    return out


def tips(row: Row, arm: Arm | None = None) -> list[str | None]:
    """Per row of `rows`, what a hover says: the guard that failed, the frame's place."""
    out: list[str | None] = []
    for c in row.compiles:
        reason = plain_reason(thaw(c.data))
        where = f"{c.frame} at {short_where(c.file, c.line)}"
        out.append(f"{where}; recompiled because {reason}" if reason else where)
    if out:
        out.append(f"the {COMPILE_COST}: the sum of the compiles above")
        if len(rows(row)) > len(out):
            out.append(extra_help(row, arm))
    return out


def check_text(row: Row) -> str | None:
    """'torch's compile events in the first step 1.02 s; the first step's excess over a steady
    step 1.05 s; residual 0.03 s': the cost against a clock that is not torch's."""
    check = row.compile_check
    events, excess = (check.events_s, check.excess_s) if check else (None, None)
    if events is None or excess is None:
        return None
    return (
        f"check: torch's compile events in the first step {units.seconds(events)}; "
        f"the first step's excess over a steady step {units.seconds(excess)}; "
        f"residual {units.seconds(excess - events)}"
    )


CPU_CHECK = "inductor's once-per-machine CPU check"


def cpu_check_text(row: Row | None, arm: Arm | None = None) -> str | None:
    """'Cold compile 3.21 s (inductor's once-per-machine CPU check, 9.80 s, not included: paid
    once per machine or fresh cache; ...)': the check ran before compiling (worker/cpu_check.py)
    and is in no compile figure. None where the arm's processes did not run it (older sessions,
    another backend or device, the user's caches)."""
    check = arm.cpu_check if arm is not None else None
    if check is None:
        return None
    if check.error:
        return f"{CPU_CHECK} could not run before compiling ({check.error}): the compiles hold it."
    first, own = check.first_s, check.seconds
    cost = row.compile if row else None
    cold = cost.cold_s if cost is not None else None
    head = f"Cold compile {units.seconds(cold)}" if cold is not None else "The compile figures"
    if check.built:
        when = "it ran first on this machine in this run, before the cold compile"
    else:
        when = (
            "already done on this machine: this run's process loaded its libraries again, "
            f"{units.seconds(own)}"
        )
    return (
        f"{head} ({CPU_CHECK}, {units.seconds(first)}, not included: paid once per machine or "
        f"fresh cache; {when})."
    )


def notes(row: Row | None, arm: Arm | None = None) -> list[str]:
    """The sentences under the list: where the compiles ran, the first step's check, the CPU
    check left out (said of an arm without a row too)."""
    said = (case_text(row, arm), check_text(row)) if row else ()
    texts = (*said, cpu_check_text(row, arm))
    return [t for t in texts if t]


def _calls(listed: list[Compile], kind: bool = True) -> str:
    """'an evaluation at eval_first.py:30', 'a call at train.py:12' (each call once); without
    `kind`, 'at eval_first.py:30'."""
    seen: dict[str, None] = {}
    for c in listed:
        what = ("an evaluation " if c.grad_mode is False else "a call ") if kind else ""
        seen.setdefault(f"{what}at {_call(c)}")
    return ", ".join(seen)


def _count(n: int) -> str:
    return f"{n} compile{'s' if n != 1 else ''} ran"


def case_text(row: Row, arm: Arm | None = None) -> str | None:
    """Where this batch size's compiles ran and how each is counted: '1 compile ran before
    training (an evaluation at eval_first.py:30), counted in the cost and left out of
    start-up; ...'. None without a list."""
    listed = list(row.compiles)
    if not listed:
        return None
    before = [c for c in listed if c.when == "before_training"]
    evaluation = [c for c in listed if c.when == "evaluation"]
    in_steps = [c for c in listed if c.when not in ("before_training", "evaluation")]
    parts = []
    if before:
        parts.append(
            f"{_count(len(before))} before training ({_calls(before)}), counted in the cost "
            "and left out of start-up"
        )
    if evaluation:
        parts.append(
            f"{_count(len(evaluation))} in an evaluation between steps ({_calls(evaluation, kind=False)}), "
            "counted in the cost"
        )
    if in_steps:
        parts.append(f"{_count(len(in_steps))} inside training steps")
    cost = row.compile
    figure = (cost.cold_s if cost.cold_s is not None else cost.first_s) if cost else None
    text = "; ".join(parts)
    if figure is not None:
        text += f". The {COMPILE_COST}, {units.seconds(figure)}, is the time all of them took"
    extra = _extra(row)
    if extra is not None:
        text += (
            f"; beyond compiling, the first step paid {units.seconds(extra)} "
            f"({extra_words(row, arm)}): a part of its own, counted in break-even"
        )
    return text[0].upper() + text[1:] + "."


def heading(session: SessionModel, row: Row) -> str:
    """'Each compile at bs 8'; a script's: 'Each compile at batch_size=8', or 'Each compile'."""
    script = script_of(session)
    bs = row.batch_size
    if script is None:
        return f"Each compile at bs {bs}"
    return f"Each compile at {phase_text(script, bs)}" if script.sweep else "Each compile"


def html(
    session: SessionModel,
    row: Row,
    esc: Callable[[Any], str],
    arm: Arm | None = None,
) -> str:
    """report.html's list of one batch size's compiles (of `arm`), its sentence and its check."""
    cells = rows(row, arm)
    if not cells:
        return ""
    hovers = tips(row, arm)
    body = []
    for i, r in enumerate(cells):
        cls = ' class="total"' if r[0] in (TOTAL, EXTRA) else ""
        title = f' title="{esc(hovers[i])}"' if i < len(hovers) and hovers[i] else ""
        body.append(
            f'<tr{cls}{title}><td>{esc(r[0])}</td><td class="mono">{esc(r[1])}</td>'
            f'<td class="mono">{esc(r[2])}</td><td class="num">{esc(r[3])}</td>'
            f'<td class="num">{esc(r[4])}</td></tr>'
        )
    head = "".join(
        f'<th class="{"num" if h in ("s", "share") else ""}">{esc(h)}</th>' for h in HEADER
    )
    return (
        f"<h4>{esc(heading(session, row))}</h4>"
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
        + "".join(f'<p class="note">{esc(n)}</p>' for n in notes(row, arm))
    )


def markdown_lines(
    session: SessionModel,
    row: Row,
    md_text: Callable[[Any], str],
    arm: Arm | None = None,
) -> list[str]:
    """report.md's list of one batch size's compiles (of `arm`), its sentence and its check."""
    cells = rows(row, arm)
    if not cells:
        return []
    out = [f"_{md_text(heading(session, row))}_", ""]
    out.append("| " + " | ".join(HEADER) + " |")
    out.append("|---|---|---|---:|---:|")
    out += ["| " + " | ".join(md_text(c) or " " for c in r) + " |" for r in cells]
    out.append("")
    out += [f"{md_text(t)}" for t in notes(row, arm)]
    return [*out, ""]
