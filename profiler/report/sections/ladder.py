"""The backend ladder in the reports and the terminal, from the session model's Ladder.

One row per stage and batch size: what the stage adds over the one before (step time), its
compile time, memory and accuracy; below, the first stage that diverged and the minifier command
that fits it, or, when no stage diverged, whether each stage matched eager or fell back to eager
(its compiled code never ran, so nothing compiled was compared). Only ladder sessions
(`--ladder`) have it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tcprof.profiler.model.ladder import Ladder, LadderStage, StageFigures
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units

Esc = Callable[[Any], str]
HEADER = [
    "stage",
    "adds",
    "bs",
    "median ms",
    "+ms over previous",
    "compile s",
    "train peak",
    "accuracy",
]


def _accuracy_text(stage: LadderStage, batch_size: int | None) -> str:
    if stage.accuracy == "fell back" or batch_size in stage.fell_back:
        return "fell back to eager (not compared)"
    return str(stage.accuracy)


def _names(stages: list[LadderStage]) -> str:
    names = [str(s.stage) for s in stages]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _no_divergence(ladder: Ladder) -> str:
    """No stage diverged: which stages matched eager, and which fell back to eager and so
    compared nothing compiled."""
    stages = [s for s in ladder.stages if s.accuracy != "baseline"]
    whole = [s for s in stages if s.accuracy == "fell back"]
    some = [s for s in stages if s not in whole and s.fell_back]
    if ladder.all_fell_back or (stages and len(whole) == len(stages)):
        return (
            "Every stage fell back to eager: no compiled code ran, so nothing compiled was "
            "compared with eager (see the fallbacks: the recompile limit, or compiles that "
            "failed under --suppress-errors)."
        )
    unchecked = [s for s in stages if s not in whole and s.accuracy == "not checked"]
    if stages and len(unchecked) == len(stages):
        return (
            "Accuracy was not checked (--no-accuracy), so the ladder cannot say which stage "
            "diverges from eager; run it again with the accuracy check on."
        )
    if not whole and not some and not unchecked:
        return "Every stage matched eager within the accuracy tolerance."
    parts = ["No stage that ran compiled code diverged from eager"]
    if whole:
        parts.append(f"{_names(whole)} fell back to eager and compared nothing compiled")
    for stage in some:
        sizes = ", ".join(str(b) for b in stage.fell_back)
        parts.append(f"{stage.stage} fell back to eager at batch size(s) {sizes}")
    if unchecked:
        parts.append(f"{_names(unchecked)} had no accuracy check")
    return "; ".join(parts) + "."


_NONE = StageFigures(None, None, None, None, None)  # a stage without figures: one row of '-'


def rows(session: SessionModel) -> list[list[str]]:
    ladder = session.ladder
    out = []
    for stage in ladder.stages if ladder else ():
        for per in stage.figures or (_NONE,):
            out.append(
                [
                    str(stage.stage),
                    str(stage.what),
                    "-" if per.batch_size is None else str(per.batch_size),
                    units.ms(per.median_ms, unit=False),
                    units.ms(per.added_ms, unit=False, plus=True),
                    units.seconds(per.compile_s, unit=False),
                    units.megabytes(per.steady_peak_mb),
                    _accuracy_text(stage, per.batch_size),
                ]
            )
    return out


def verdict(session: SessionModel) -> str | None:
    ladder = session.ladder
    if ladder is None:
        return None
    first = ladder.first_divergence
    if not first:
        return _no_divergence(ladder)
    return (
        f"The first stage to diverge from eager is {first}. Shrink it to a minimal repro with "
        f"the minifier: {ladder.minifier}"
    )


def html_section(session: SessionModel, esc: Esc) -> str:
    found = rows(session)
    if not found:
        return ""
    head = "".join(f"<th>{esc(h)}</th>" for h in HEADER)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in found)
    return (
        '<section id="ladder"><h2>Backend ladder</h2>'
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
        f'<p class="note">{esc(verdict(session))}</p></section>'
    )


def markdown_lines(session: SessionModel, md_text: Callable[[Any], str]) -> list[str]:
    found = rows(session)
    if not found:
        return []
    out = ["**Backend ladder**", "", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    out += ["| " + " | ".join(md_text(c) for c in r) + " |" for r in found]
    return [*out, "", md_text(verdict(session)), ""]


def text_lines(session: SessionModel) -> list[str]:
    found = rows(session)
    if not found:
        return []
    out = ["Backend ladder (what each stage adds):"]
    width = max(len(r[0]) for r in found)
    out += [
        f"  {r[0]:{width}s}  bs {r[2]:>4s}  {r[3]:>9s} ms  {r[4]:>8s}  compile {r[5]:>6s} s  accuracy {r[7]}"
        for r in found
    ]
    return [*out, f"  {verdict(session)}"]
