"""The HTML sections of report.html. Each takes the session dict and `esc` (html.escape)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
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
    speedup_settled,
    speedup_tone,
    status_text,
)
from tcprof.profiler.config import loop_text, where_text
from tcprof.profiler.model.arm import Advice, GraphBreak, Recompile
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.compile_terms import (
    compile_figure,
    parts_text,
    resume_explanation,
    split_problem,
)
from tcprof.profiler.protocol.event_text import FELL_BACK, recompile_limit_hit
from tcprof.profiler.report.data import short_where
from tcprof.profiler.report.sections import compile_list
from tcprof.profiler.report.sections.table import (
    COLUMN_HELP,
    NUMERIC_COLUMNS,
    SPEEDUP,
    VERDICT_TEXT,
    accuracy_title,
    column_key,
    method_notes,
    steps_text,
    summary_results,
    table_rows,
    tolerance_text,
)

Esc = Callable[[Any], str]
MAX_LOG_LINES = 2000


def verdict_list(session_dict: dict[str, Any], esc: Esc) -> str:
    """The verdict first: one coloured sentence per compiled arm."""
    items = "".join(
        f'<li class="{"" if v.tone == NEUTRAL else v.tone}">{esc(v.text)}</li>'
        for v in session_verdicts(session_dict)
    )
    notes = "".join(f"<li>{esc(n)}</li>" for n in session_notes(session_dict))
    out = f'<ul class="verdict">{items}</ul>' if items else ""
    return out + (f'<ul class="notes">{notes}</ul>' if notes else "")


def _compile_card(results: list[dict[str, Any]]) -> str:
    """'compile cost cold 7.88 s, warm 0.41 s at bs 8; cold 0.70 s at bs 16': each batch
    size's own figures, as the table has them (never a sum the table does not show)."""
    parts = []
    for r in results:
        cold, warm = compile_figure(r), r.get("compile_warm_s")
        if cold is None:
            continue
        text = f"cold {units.seconds(cold)}" + (
            f", warm {units.seconds(warm)}" if warm is not None else ""
        )
        parts.append(f"{text} at bs {r.get('batch_size')}")
    return "compile cost " + "; ".join(parts) if parts else "no compile cost measured"


def _cards(session_dict: dict[str, Any], esc: Esc) -> str:
    cards = []
    for arm in (session_dict.get("arms") or [])[1:]:
        results = arm.get("results") or []
        measured = [r for r in results if r.get("speedup") is not None]
        kept = [r for r in measured if speedup_settled(r)]  # the one rule: only these are quoted
        speedups = [r["speedup"] for r in kept]
        if speedups:
            lo, hi = min(speedups), max(speedups)
            big = units.ratio_span(lo, hi)
            tones = {speedup_tone(r) for r in kept} - {NEUTRAL}
            cls = next(iter(tones)) if len(tones) == 1 else ""  # the table's rule, all agreeing
        elif measured:
            big, cls = NOT_SETTLED, "muted"
        else:
            big, cls = "no speedup measured", "muted"
        unsettled = [
            f'<span class="muted">{NOT_SETTLED} at bs {r["batch_size"]}: '
            f"{esc(settle_hint(r))}</span>"
            for r in measured
            if r not in kept
        ]
        base_rows = {r.get("batch_size"): r for r in _baseline_results(session_dict)}
        medians = [
            f'<span class="muted">{esc(note)}</span>'
            for r in measured
            if (note := medians_note(r, base_rows.get(r.get("batch_size"))))
        ]
        compile_text = _compile_card(results)
        statuses = {(r.get("accuracy") or {}).get("status") for r in results} - {None}
        accuracy = next((s for s in ("fail", "pass", "nondeterministic") if s in statuses), "n/a")
        verdicts = {VERDICT_TEXT.get(r.get("verdict") or "", "") for r in results} - {"", "-"}
        items = [
            compile_text,
            f"{len(arm.get('graph_breaks') or [])} distinct graph break(s), "
            f"{len(arm.get('recompiles') or [])} recompile(s)",
            f'accuracy <span class="{"bad" if accuracy == "fail" else "good" if accuracy == "pass" else "muted"}">'
            f"{accuracy}</span>",
        ]
        if verdicts:
            items.insert(0, "verdict: " + esc(", ".join(sorted(verdicts))))
        items[:0] = unsettled + medians  # what would settle it, and why the medians disagree
        cut = [f"bs {r['batch_size']} {status_text(r)}" for r in results if r.get("partial")]
        if cut:  # a speedup measured on fewer steps than asked is not called one unmarked
            big += " (partial)" if speedups else ""
            items.append(f'<span class="bad">partial: {esc(", ".join(cut))}</span>')
        if arm.get("fallbacks"):
            items.append(f'<span class="bad">{FELL_BACK}</span>')
        if arm.get("error"):
            err = arm["error"]
            items.append(f'<span class="bad">error ({esc(err.get("kind"))})</span>')
        cards.append(
            f'<div class="card"><div class="name">{esc(arm.get("name"))} vs '
            f"{esc(session_dict.get('baseline'))}</div>"
            f'<div class="big {cls}">{esc(big)}</div>'
            f"<ul>{''.join(f'<li>{i}</li>' for i in items)}</ul></div>"
        )
    return f'<div class="cards">{"".join(cards)}</div>' if cards else ""


def _baseline_results(session_dict: dict[str, Any]) -> list[dict[str, Any]]:
    arms = session_dict.get("arms") or []
    name = session_dict.get("baseline") or (arms[0].get("name") if arms else None)
    return next((a.get("results") or [] for a in arms if a.get("name") == name), [])


def summary(session_dict: dict[str, Any], esc: Esc) -> str:
    return (
        f'<section id="summary"><h2>Summary</h2>{verdict_list(session_dict, esc)}'
        f"{summary_body(session_dict, esc)}</section>"
    )


def summary_body(session_dict: dict[str, Any], esc: Esc) -> str:
    """The cards, the table and its notes (the summary but for its verdict)."""
    header, rows = table_rows(session_dict)
    raw = [(i, r) for i, _arm, r in summary_results(session_dict)]
    head = "".join(
        f'<th class="{"num" if h in NUMERIC_COLUMNS else ""}">{esc(h)}</th>' for h in header
    )
    body = []
    for cells, (arm_index, r) in zip(rows, raw, strict=False):
        tds = []
        for h, cell in zip(header, cells, strict=False):
            cls = "num" if h in NUMERIC_COLUMNS else ""
            title = ""
            if cell.endswith("(partial)") or (h == "status" and r.get("partial") is True):
                title = partial_title(r)  # its figures are from fewer steps than asked
            if h == "status" and r.get("status") != "ok":
                cls = "bad"
            elif column_key(h) == SPEEDUP and arm_index:
                tone = speedup_tone(r)
                cls = "" if tone == NEUTRAL else tone
            elif h == "memory" and arm_index:
                title = memory_title(r, session_dict.get("baseline"))
            elif h == "accuracy" and cell == "fail":
                cls, acc = "bad", r.get("accuracy") or {}
                title = accuracy_title(acc)
            elif h == "accuracy" and cell == "pass":
                cls = "good"
            elif h == "median ms" and r.get("noisy"):
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
    notes += [esc(n[0].upper() + n[1:] + ".") for n in method_notes(session_dict)]
    table = (
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
        if body
        else '<p class="muted">No batch size was measured.</p>'
    )
    return f"{_cards(session_dict, esc)}{table}" + "".join(
        f'<p class="note">{n}</p>' for n in notes
    )


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


def insight(session: SessionModel | Mapping[str, Any], esc: Esc) -> str:
    model = SessionModel.read(session)
    session_dict = model.to_dict()  # for the compile list, which still reads the dicts
    parts = ['<section id="insight"><h2>Graph breaks &amp; recompiles</h2>']
    any_found = False
    for arm in model.arms:
        results = [thaw(r.data) for r in arm.rows]
        costs = [
            f"bs {r.get('batch_size')}: {parts_text(r) or 'no split: ' + str(split_problem(r))}"
            for r in results
            if parts_text(r) or split_problem(r)
        ]
        raw_arm = thaw(arm.data)
        listed = [
            block for r in results if (block := compile_list.html(session_dict, r, esc, raw_arm))
        ]
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


def errors(session_dict: dict[str, Any], esc: Esc) -> str:
    arms = session_dict.get("arms") or []
    names = {a.get("index", i): a.get("name") for i, a in enumerate(arms)}
    parts = ['<section id="errors"><h2>Errors</h2>']
    found = False
    for err in session_dict.get("errors") or []:
        found = True
        arm = names.get(err.get("arm"), err.get("arm"))
        where = f" at {_where(esc, err.get('file'), err.get('line'))}" if err.get("file") else ""
        bs = f", bs={esc(err.get('batch_size'))}" if err.get("batch_size") is not None else ""
        tb = err.get("traceback")
        parts.append(
            f'<div class="error-box"><span class="kind">{esc(err.get("kind"))} error</span> '
            f"in {esc(arm if arm is not None else 'the run')}{bs}{where}"
            f'<pre class="wrap">{esc(err.get("message"))}</pre>'
            + (f"<details><summary>traceback</summary><pre>{esc(tb)}</pre></details>" if tb else "")
            + "</div>"
        )
    listed = {(e.get("arm"), e.get("message")) for e in session_dict.get("errors") or []}
    for i, arm in enumerate(arms):
        err = arm.get("error")
        if err and (arm.get("index", i), err.get("message")) not in listed:
            found = True
            parts.append(
                f'<div class="error-box"><span class="kind">{esc(err.get("kind"))} error</span> '
                f"in {esc(arm.get('name'))}<pre>{esc(err.get('message'))}</pre></div>"
            )
        ex = arm.get("exit") or {}
        if ex and ex.get("status") not in (None, "normal"):
            found = True
            detail = ", ".join(f"{k}={v}" for k, v in ex.items() if k != "t")
            parts.append(
                f'<p class="bad">worker of {esc(arm.get("name"))} exited abnormally: {esc(detail)}</p>'
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


def _arm_options(arm: dict[str, Any]) -> list[str]:
    if arm.get("backend") == "eager":
        return ["-", "-", "-"]
    opts = arm.get("options") or {}
    dynamic = opts.get("dynamic")
    return [
        opts.get("mode") or "default",
        "None (automatic)" if dynamic is None else str(dynamic),
        str(bool(opts.get("fullgraph"))),
    ]


def configuration(session_dict: dict[str, Any], esc: Esc) -> str:
    cfg = session_dict.get("config") or {}
    src = cfg.get("source") or {}
    dbg = cfg.get("debug") or {}
    loaded: dict[str, Any] = next(
        (a.get("model") for a in session_dict.get("arms") or [] if a.get("model")), {}
    )
    items = [
        ("model file", src.get("path")),
        ("model", src.get("factory") or src.get("model") or (loaded or {}).get("model")),
        ("parameters", units.count(loaded["params"]) if (loaded or {}).get("params") else None),
        ("input", src.get("input_shape") or (loaded or {}).get("input")),
        ("weights", cfg.get("weights") or "the seed's initial weights"),
        ("batch sizes", cfg.get("batch_sizes")),
        ("steps", steps_text(session_dict)),
        (
            "blocks",
            f"{cfg.get('blocks')} ({'sequential' if cfg.get('sequential') else 'interleaved'})",
        ),
        ("device", cfg.get("device")),
        ("ran on", where_text(cfg)),
        ("loop", loop_text(cfg)),
        ("optimizer", f"{cfg.get('optimizer')} lr={cfg.get('lr')}"),
        ("seed", cfg.get("seed")),
        ("accuracy tolerance", tolerance_text(session_dict)),
        ("debug logs", dbg.get("logs")),
        ("dynamo verbose", dbg.get("verbose")),
        ("suppress_errors", dbg.get("suppress_errors")),
        ("fail_on_recompile", dbg.get("fail_on_recompile")),
        ("timeout s", cfg.get("timeout_s")),
    ]
    arm_rows = "".join(
        f'<tr><td>{esc(a.get("name"))}</td><td class="mono">{esc(a.get("backend"))}</td>'
        + "".join(f"<td>{esc(v)}</td>" for v in _arm_options(a))
        + "</tr>"
        for a in session_dict.get("arms") or []
    )
    return (
        '<section id="configuration"><h2>Configuration</h2>'
        + _kv(esc, items)
        + '<h3>Arms</h3><div class="table-wrap"><table><thead><tr><th>arm</th><th>backend</th>'
        f"<th>mode</th><th>dynamic</th><th>fullgraph</th></tr></thead><tbody>{arm_rows}</tbody>"
        "</table></div></section>"
    )


def environment(session_dict: dict[str, Any], esc: Esc) -> str:
    env = dict(session_dict.get("environment") or {})
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


def logs(session_dict: dict[str, Any], esc: Esc) -> str:
    entries = session_dict.get("logs") or []
    names = {a.get("index", i): a.get("name") for i, a in enumerate(session_dict.get("arms") or [])}
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


def footer(session_dict: dict[str, Any], esc: Esc) -> str:
    ended = session_dict.get("ended_at")
    started = session_dict.get("started_at")
    took = (
        f" · run took {units.duration(ended - started)}"
        if isinstance(ended, (int, float)) and isinstance(started, (int, float))
        else ""
    )
    return (
        f"<footer>Generated by tcprof from a session (schema "
        f"{esc(session_dict.get('schema_version'))}){esc(took)}. Charts: uPlot (MIT licence), "
        "inlined: this file makes no network request.</footer>"
    )
