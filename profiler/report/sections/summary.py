"""report.html's summary: the verdict sentences and notes, a card per compiled arm against
the baseline, and the summary table with its notes. Each section takes the session model and
`esc` (html.escape), as every module of sections/ does."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tcprof.profiler.analysis.verdict import (
    NEUTRAL,
    NOT_SETTLED,
    medians_note,
    memory_title,
    partial_title,
    session_notes,
    session_verdicts,
    settle_hint,
    speedup_tone,
)
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.event_text import FELL_BACK
from tcprof.profiler.report.sections.cells import VERDICT_TEXT, accuracy_title
from tcprof.profiler.report.sections.columns import (
    COLUMN_HELP,
    NUMERIC_COLUMNS,
    SPEEDUP,
    column_key,
)
from tcprof.profiler.report.sections.method import method_notes
from tcprof.profiler.report.sections.table import summary_rows, table_rows

Esc = Callable[[Any], str]


def verdict_list(model: SessionModel, esc: Esc) -> str:
    """The verdict first: one coloured sentence per compiled arm."""
    items = "".join(
        f'<li class="{"" if v.tone == NEUTRAL else v.tone}">{esc(v.text)}</li>'
        for v in session_verdicts(model)
    )
    notes = "".join(f"<li>{esc(n)}</li>" for n in session_notes(model))
    out = f'<ul class="verdict">{items}</ul>' if items else ""
    return out + (f'<ul class="notes">{notes}</ul>' if notes else "")


def _cold(row: Row) -> float | None:
    """The compile cost of one batch size: the cold one, or the only one a session has
    (protocol/compile_terms.compile_figure, on the typed row)."""
    cost = row.compile
    if cost is None:
        return None
    return cost.cold_s if cost.cold_s is not None else cost.first_s


def _compile_card(results: Sequence[Row]) -> str:
    """'compile cost cold 7.88 s, warm 0.41 s at bs 8; cold 0.70 s at bs 16': each batch
    size's own figures, as the table has them (never a sum the table does not show)."""
    parts = []
    for r in results:
        cold, warm = _cold(r), r.compile.warm_s if r.compile else None
        if cold is None:
            continue
        text = f"cold {units.seconds(cold)}" + (
            f", warm {units.seconds(warm)}" if warm is not None else ""
        )
        parts.append(f"{text} at bs {r.batch_size}")
    return "compile cost " + "; ".join(parts) if parts else "no compile cost measured"


def _tone(row: Row) -> str:
    """The speedup's colour (analysis.verdict.speedup_tone)."""
    return speedup_tone(row)


def _cards(model: SessionModel, esc: Esc) -> str:
    cards = []
    base_rows = {r.batch_size: r for r in _baseline_rows(model)}
    for arm in model.arms[1:]:
        results = arm.rows
        measured = [r for r in results if r.speedup is not None]
        kept = [
            r for r in measured if r.speedup and r.speedup.settled
        ]  # the one rule: only these are quoted
        speedups = [r.speedup.value for r in kept if r.speedup]
        if speedups:
            lo, hi = min(speedups), max(speedups)
            big = units.ratio_span(lo, hi)
            tones = {_tone(r) for r in kept} - {NEUTRAL}
            cls = next(iter(tones)) if len(tones) == 1 else ""  # the table's rule, all agreeing
        elif measured:
            big, cls = NOT_SETTLED, "muted"
        else:
            big, cls = "no speedup measured", "muted"
        unsettled = [
            f'<span class="muted">{NOT_SETTLED} at bs {r.batch_size}: {esc(settle_hint(r))}</span>'
            for r in measured
            if r not in kept
        ]
        medians = [
            f'<span class="muted">{esc(note)}</span>'
            for r in measured
            if (note := medians_note(r, base_rows.get(r.batch_size)))
        ]
        compile_text = _compile_card(results)
        statuses = {r.accuracy.status for r in results if r.accuracy}
        accuracy = next((s for s in ("fail", "pass", "nondeterministic") if s in statuses), "n/a")
        verdicts = {VERDICT_TEXT.get(r.interval_verdict or "", "") for r in results} - {"", "-"}
        items = [
            compile_text,
            f"{len(arm.graph_breaks)} distinct graph break(s), {len(arm.recompiles)} recompile(s)",
            f'accuracy <span class="{"bad" if accuracy == "fail" else "good" if accuracy == "pass" else "muted"}">'
            f"{accuracy}</span>",
        ]
        if verdicts:
            items.insert(0, "verdict: " + esc(", ".join(sorted(verdicts))))
        items[:0] = unsettled + medians  # what would settle it, and why the medians disagree
        cut = [f"bs {r.batch_size} {r.status_text}" for r in results if r.partial]
        if cut:  # a speedup measured on fewer steps than asked is not called one unmarked
            big += " (partial)" if speedups else ""
            items.append(f'<span class="bad">partial: {esc(", ".join(cut))}</span>')
        if arm.fallbacks:
            items.append(f'<span class="bad">{FELL_BACK}</span>')
        if arm.error:
            items.append(f'<span class="bad">error ({esc(arm.error.kind)})</span>')
        cards.append(
            f'<div class="card"><div class="name">{esc(arm.name)} vs '
            f"{esc(model.baseline)}</div>"
            f'<div class="big {cls}">{esc(big)}</div>'
            f"<ul>{''.join(f'<li>{i}</li>' for i in items)}</ul></div>"
        )
    return f'<div class="cards">{"".join(cards)}</div>' if cards else ""


def _baseline_rows(model: SessionModel) -> tuple[Row, ...]:
    return next((a.rows for a in model.arms if a.name == model.baseline), ())


def summary(model: SessionModel, esc: Esc) -> str:
    return (
        f'<section id="summary"><h2>Summary</h2>{verdict_list(model, esc)}'
        f"{summary_body(model, esc)}</section>"
    )


def summary_body(model: SessionModel, esc: Esc) -> str:
    """The cards, the table and its notes (the summary but for its verdict)."""
    header, rows = table_rows(model)
    typed = [(i, r) for i, _arm, r in summary_rows(model)]
    head = "".join(
        f'<th class="{"num" if h in NUMERIC_COLUMNS else ""}">{esc(h)}</th>' for h in header
    )
    body = []
    for cells, (arm_index, r) in zip(rows, typed, strict=False):
        tds = []
        for h, cell in zip(header, cells, strict=False):
            cls = "num" if h in NUMERIC_COLUMNS else ""
            title = ""
            if cell.endswith("(partial)") or (h == "status" and r.partial):
                title = partial_title(r)  # its figures are from fewer steps than asked
            if h == "status" and r.status != "ok":
                cls = "bad"
            elif column_key(h) == SPEEDUP and arm_index:
                tone = _tone(r)
                cls = "" if tone == NEUTRAL else tone
            elif h == "memory" and arm_index:
                title = memory_title(r, model.baseline)
            elif h == "accuracy" and cell == "fail" and r.accuracy:
                cls, title = "bad", accuracy_title(r.accuracy)
            elif h == "accuracy" and cell == "pass":
                cls = "good"
            elif h == "median ms" and r.noisy:
                cell += " *"
                title = "noisy: the interquartile range is over 10% of the median"
            tds.append(
                f'<td class="{cls}"'
                + (f' title="{esc(title)}"' if title else "")
                + f">{esc(cell)}</td>"
            )
        body.append(f"<tr>{''.join(tds)}</tr>")
    shown = {column_key(h): h for h in header}  # the speedup's header states its level
    notes = [
        esc(f"{shown.get(h, h)}: {text}.")
        for h, text in COLUMN_HELP.items()
        if h in (SPEEDUP, "compile s cold/warm", "tensor peak", "memory")
    ]
    notes.append("Green: faster beyond noise; red: slower. * marks a noisy median.")
    notes += [esc(n[0].upper() + n[1:] + ".") for n in method_notes(model)]
    table = (
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
        if body
        else '<p class="muted">No batch size was measured.</p>'
    )
    return f"{_cards(model, esc)}{table}" + "".join(f'<p class="note">{n}</p>' for n in notes)
