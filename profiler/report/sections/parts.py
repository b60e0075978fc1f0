"""The HTML sections of report.html. Each takes the session model (a caller holding
session.json's dict reads it once through `SessionModel.read`) and `esc` (html.escape)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from tcprof.profiler.analysis.user_words import plain_reason
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
from tcprof.profiler.config import loop_text, where_text
from tcprof.profiler.model.arm import Advice, Arm, GraphBreak, Recompile
from tcprof.profiler.model.figures import Problem
from tcprof.profiler.model.json_values import as_map, thaw
from tcprof.profiler.model.json_values import items as json_items
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.compile_terms import (
    parts_text,
    resume_explanation,
    split_problem,
)
from tcprof.profiler.protocol.event_text import FELL_BACK, recompile_limit_hit
from tcprof.profiler.report.data import short_where
from tcprof.profiler.report.sections import compile_list
from tcprof.profiler.report.sections.cells import VERDICT_TEXT, accuracy_title
from tcprof.profiler.report.sections.columns import (
    COLUMN_HELP,
    NUMERIC_COLUMNS,
    SPEEDUP,
    column_key,
)
from tcprof.profiler.report.sections.method import method_notes, steps_text, tolerance_text
from tcprof.profiler.report.sections.table import summary_rows, table_rows

Esc = Callable[[Any], str]
MAX_LOG_LINES = 2000


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


def _where(esc: Esc, file: Any, line: Any) -> str:
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
            f"<tr><td>{_where(esc, gb.file, gb.line)}</td>"
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
        f"<td>{_where(esc, rc.file, rc.line)}</td>"
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
                f"({_where(esc, fb.file, fb.line)}). {esc(fb.reason or '')}</p>"
            )
        parts.append(_advice(arm.advice, esc))
    if not any_found:
        parts.append('<p class="muted">No graph breaks, recompiles or fallbacks were recorded.</p>')
    parts.append("</section>")
    return "".join(parts)


def _error_box(esc: Esc, err: Problem, arm: object) -> str:
    where = f" at {_where(esc, err.file, err.line)}" if err.file else ""
    bs = f", bs={esc(err.batch_size)}" if err.batch_size is not None else ""
    tb = err.traceback
    return (
        f'<div class="error-box"><span class="kind">{esc(err.kind)} error</span> '
        f"in {esc(arm if arm is not None else 'the run')}{bs}{where}"
        f'<pre class="wrap">{esc(err.message)}</pre>'
        + (f"<details><summary>traceback</summary><pre>{esc(tb)}</pre></details>" if tb else "")
        + "</div>"
    )


def errors(model: SessionModel, esc: Esc) -> str:
    # an arm's index as saved (its place in the list where an old session has none)
    indexed = [(arm.index or i, arm) for i, arm in enumerate(model.arms)]
    names: dict[object, str] = {index: arm.name for index, arm in indexed}
    parts = ['<section id="errors"><h2>Errors</h2>']
    found = bool(model.errors)
    parts += [_error_box(esc, err, names.get(err.arm, err.arm)) for err in model.errors]
    listed = {(e.arm, e.message) for e in model.errors}
    for index, arm in indexed:
        err = arm.error
        if err and (index, err.message) not in listed:
            found = True
            parts.append(
                f'<div class="error-box"><span class="kind">{esc(err.kind)} error</span> '
                f"in {esc(arm.name)}<pre>{esc(err.message)}</pre></div>"
            )
        ex = as_map(arm.data.get("exit"))  # how its worker ended, shown as given: model/raw.py
        if ex and ex.get("status") not in (None, "normal"):
            found = True
            detail = ", ".join(f"{k}={v}" for k, v in ex.items() if k != "t")
            parts.append(
                f'<p class="bad">worker of {esc(arm.name)} exited abnormally: {esc(detail)}</p>'
            )
    if not found:
        parts.append('<p class="muted">No errors.</p>')
    parts.append("</section>")
    return "".join(parts)


def _kv(esc: Esc, items: list[tuple[str, Any]]) -> str:
    rows = []
    for key, value in items:
        if isinstance(value, (list, tuple)):
            value = ", ".join(str(v) for v in value) or "-"
        elif isinstance(value, dict):
            value = json.dumps(value)
        elif value is None:
            value = "-"
        rows.append(f'<tr><th>{esc(key)}</th><td class="wrap">{esc(value)}</td></tr>')
    return f'<table class="kv"><tbody>{"".join(rows)}</tbody></table>'


def _arm_options(arm: Arm) -> list[str]:
    if arm.backend == "eager":
        return ["-", "-", "-"]
    return [
        arm.mode or "default",
        "None (automatic)" if arm.dynamic is None else str(arm.dynamic),
        str(bool(arm.fullgraph)),
    ]


def configuration(model: SessionModel, esc: Esc) -> str:
    cfg = thaw(model.config)  # config/wording.py words the options as given (model/raw.py)
    src, options = model.options.source, model.options
    dbg = options.debug
    # what the worker loaded (the first arm that says)
    loaded = next((a.loaded for a in model.arms if a.loaded), None)
    items = [
        ("model file", src.path),
        ("model", src.factory or src.model or (loaded.model if loaded else None)),
        ("parameters", units.count(loaded.params) if loaded and loaded.params else None),
        ("input", src.input_shape or (loaded.input if loaded else None)),
        ("weights", options.weights or "the seed's initial weights"),
        ("batch sizes", options.batch_sizes),
        ("steps", steps_text(model)),
        (
            "blocks",
            f"{options.blocks} ({'sequential' if options.sequential else 'interleaved'})",
        ),
        ("device", options.device),
        ("ran on", where_text(cfg)),
        ("loop", loop_text(cfg)),
        ("optimizer", f"{options.optimizer} lr={options.lr}"),
        ("seed", options.seed),
        ("accuracy tolerance", tolerance_text(model)),
        ("debug logs", dbg.logs),
        # a session without debug settings says nothing of them
        ("dynamo verbose", dbg.verbose if dbg.given else None),
        ("suppress_errors", dbg.suppress_errors if dbg.given else None),
        ("fail_on_recompile", dbg.fail_on_recompile if dbg.given else None),
        ("timeout s", options.timeout_s),
    ]
    arm_rows = "".join(
        f'<tr><td>{esc(a.name)}</td><td class="mono">{esc(a.backend)}</td>'
        + "".join(f"<td>{esc(v)}</td>" for v in _arm_options(a))
        + "</tr>"
        for a in model.arms
    )
    return (
        '<section id="configuration"><h2>Configuration</h2>'
        + _kv(esc, items)
        + '<h3>Arms</h3><div class="table-wrap"><table><thead><tr><th>arm</th><th>backend</th>'
        f"<th>mode</th><th>dynamic</th><th>fullgraph</th></tr></thead><tbody>{arm_rows}</tbody>"
        "</table></div></section>"
    )


def environment(session: SessionModel, esc: Esc) -> str:
    env = thaw(session.environment)  # every key as the worker said it
    if not env:
        return '<section id="environment"><h2>Environment</h2><p class="muted">Not recorded.</p></section>'
    backends = env.pop("backends", None)
    env.pop("pid", None)
    out = '<section id="environment"><h2>Environment</h2>' + _kv(esc, list(env.items()))
    if backends:
        out += (
            f"<details><summary>{len(backends)} torch.compile backends available</summary>"
            f'<p class="mono">{esc(", ".join(str(b) for b in backends))}</p></details>'
        )
    return out + "</section>"


def logs(model: SessionModel, esc: Esc) -> str:
    entries = json_items(model.data.get("logs"))  # the workers' output, shown as text: model/raw.py
    names: dict[object, str] = {arm.index or i: arm.name for i, arm in enumerate(model.arms)}
    if not entries:
        return (
            '<section id="logs"><h2>Logs</h2><p class="muted">No output was captured.</p></section>'
        )
    lines = []
    for e in entries[:MAX_LOG_LINES]:
        t = e.get("t")
        stamp = f"{t:8.3f}" if isinstance(t, (int, float)) else " " * 8
        lines.append(f"{stamp} [{names.get(e.get('arm'), e.get('arm'))}] {e.get('text', '')}")
    more = (
        f'<p class="note">First {MAX_LOG_LINES} of {len(entries)} lines; session.json has all.</p>'
        if len(entries) > MAX_LOG_LINES
        else ""
    )
    return (
        '<section id="logs"><h2>Logs</h2>'
        f"<details><summary>{len(entries)} line(s) of output from the workers and torch</summary>"
        f"<pre>{esc(chr(10).join(lines))}</pre>{more}</details></section>"
    )


def code(codes: list[tuple[Any, str]], esc: Esc) -> str:
    parts = [
        '<section id="code"><h2>Code for this setup</h2>'
        '<p class="note">A standalone script per arm with plain PyTorch (no tcprof): the same '
        "model, inputs, seed and training loop, with the torch.compile line and debug settings "
        "of the arm; the first loss it prints should match the one tcprof measured. reproduce.py "
        "beside this report holds the script of the first compiled arm.</p>"
    ]
    for i, (name, text) in enumerate(codes):
        open_attr = " open" if i == 1 or len(codes) == 1 else ""
        parts.append(
            f"<details{open_attr}><summary>{esc(name)} "
            f'<button type="button" class="copy" data-target="code-{i}">copy</button></summary>'
            f'<pre id="code-{i}">{esc(text)}</pre></details>'
        )
    parts.append("</section>")
    return "".join(parts)


def footer(model: SessionModel, esc: Esc) -> str:
    ended, started = model.ended_at, model.started_at
    took = (
        f" · run took {units.duration(ended - started)}"
        if ended is not None and started is not None
        else ""
    )
    return (
        f"<footer>Generated by tcprof from a session (schema "
        f"{esc(model.schema_version)}){esc(took)}. Charts: uPlot (MIT licence), "
        "inlined: this file makes no network request.</footer>"
    )
