"""report.html's record of what the workers said: the errors (the run's and each arm's, and a
worker that exited abnormally) and the captured logs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tcprof.profiler.model.figures import Problem
from tcprof.profiler.model.json_values import as_map
from tcprof.profiler.model.json_values import items as json_items
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.insight import where_html

Esc = Callable[[Any], str]
MAX_LOG_LINES = 2000


def _error_box(esc: Esc, err: Problem, arm: object) -> str:
    where = f" at {where_html(esc, err.file, err.line)}" if err.file else ""
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
