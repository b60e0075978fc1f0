"""report.html's graph breaks and recompiles: per arm, the compile cost's split, each
compile, the distinct graph breaks, the recompiles with the guard that failed, the fallbacks and
the advice; and a code location as the report shows it (where_html, the errors' too)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tcprof.profiler.analysis.user_words import plain_reason
from tcprof.profiler.model.arm import Advice, GraphBreak, Recompile
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.compile_terms import (
    parts_text,
    resume_explanation,
    split_problem,
)
from tcprof.profiler.protocol.event_text import recompile_limit_hit
from tcprof.profiler.report.data import short_where
from tcprof.profiler.report.sections import compile_list

Esc = Callable[[Any], str]


def where_html(esc: Esc, file: Any, line: Any) -> str:
    """file:line, short, with the full path on hover."""
    full = f"{file}:{line}" if file else ""
    return f'<span class="mono" title="{esc(full)}">{esc(short_where(file, line))}</span>'


def _frame(esc: Esc, frame: Any) -> str:
    """A frame's name; a resume function's with what it is below."""
    why = resume_explanation(frame)
    name = f'<span class="mono">{esc(frame)}</span>'
    return f'{name}<div class="muted">{esc(why)}</div>' if why else name


def _advice(advice: tuple[Advice, ...], esc: Esc) -> str:
    """Causes and fixes, grouped from the guard failures (tcprof.profiler.analysis.advice)."""
    if not advice:
        return ""
    items = "".join(
        f"<li><strong>{esc(a.message)}</strong><div>Fix: {esc(a.fix)}</div>"
        + (
            f'<div class="muted">tcprof can verify it: --apply-advice adds an arm with '
            f'<span class="mono">{esc(a.apply)}</span></div>'
            if a.apply
            else ""
        )
        + "</li>"
        for a in advice
    )
    return f'<div class="advice"><h4>Advice</h4><ul>{items}</ul></div>'


def _graph_breaks(breaks: tuple[GraphBreak, ...], esc: Esc) -> str:
    rows = []
    for gb in breaks:
        detail = ""
        if gb.explanation:
            detail += f'<div class="muted">{esc(gb.explanation)}</div>'
        if gb.hints:
            detail += '<ul class="hints">' + "".join(f"<li>{esc(h)}</li>" for h in gb.hints)
            detail += "</ul>"
        rows.append(
            f"<tr><td>{where_html(esc, gb.file, gb.line)}</td>"
            f'<td class="num">{esc(gb.count)}</td>'
            f"<td>{esc(', '.join(str(b) for b in gb.batch_sizes))}</td>"
            f'<td class="wrap"><strong>{esc(gb.reason)}</strong>{detail}</td></tr>'
        )
    return (
        '<div class="table-wrap"><table><thead><tr><th>graph break at</th>'
        '<th class="num">count</th><th>batch sizes</th><th>reason</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _recompiles(recompiles: tuple[Recompile, ...], esc: Esc) -> str:
    rows = [
        f'<tr><td class="num">{esc(rc.batch_size)}</td>'
        f'<td class="num">{esc(rc.step)}</td>'
        f"<td>{_frame(esc, rc.frame)}</td>"
        f"<td>{where_html(esc, rc.file, rc.line)}</td>"
        f'<td class="num">{esc(units.seconds(rc.seconds, unit=False))}</td>'
        f'<td class="wrap mono">{esc(plain_reason(dict(rc.data)))}</td></tr>'
        for rc in recompiles
    ]
    return (
        '<div class="table-wrap"><table><thead><tr><th class="num">bs</th>'
        '<th class="num">step</th><th>frame</th><th>where</th><th class="num">s</th>'
        f"<th>recompile reason (guard that failed)</th></tr></thead><tbody>{''.join(rows)}"
        "</tbody></table></div>"
    )


def insight(model: SessionModel, esc: Esc) -> str:
    parts = ['<section id="insight"><h2>Graph breaks &amp; recompiles</h2>']
    any_found = False
    for arm in model.arms:
        # compile_terms reads session.json's rows
        saved = [(r.batch_size, thaw(r.data)) for r in arm.rows]
        costs = [
            f"bs {bs}: {parts_text(r) or 'no split: ' + str(split_problem(r))}"
            for bs, r in saved
            if parts_text(r) or split_problem(r)
        ]
        listed = [block for r in arm.rows if (block := compile_list.html(model, r, esc, arm))]
        found = arm.graph_breaks or arm.recompiles or arm.fallbacks or arm.advice
        if not (found or costs or listed):
            continue
        any_found = True
        parts.append(f"<h3>{esc(arm.name)}</h3>")
        parts += [f'<p class="muted">{esc(c)} s</p>' for c in costs]
        parts += listed
        if arm.graph_breaks:
            parts.append(_graph_breaks(arm.graph_breaks, esc))
        if arm.recompiles:
            parts.append(_recompiles(arm.recompiles, esc))
        for fb in arm.fallbacks:
            parts.append(
                f'<p class="bad">⚠ {esc(recompile_limit_hit(fb.frame))} '
                f"({where_html(esc, fb.file, fb.line)}). {esc(fb.reason or '')}</p>"
            )
        parts.append(_advice(arm.advice, esc))
    if not any_found:
        parts.append('<p class="muted">No graph breaks, recompiles or fallbacks were recorded.</p>')
    parts.append("</section>")
    return "".join(parts)
