"""report.md: the summary as a GitHub Markdown table, ready to paste into a pull request."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis.user_words import plain_reason
from tcprof.profiler.config import loop_text, where_text
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.compile_terms import resume_explanation
from tcprof.profiler.protocol.event_text import recompile_limit_hit
from tcprof.profiler.report import artefacts
from tcprof.profiler.report.data import model_label, short_where
from tcprof.profiler.report.sections import compile_list, top_ops
from tcprof.profiler.report.sections import ladder as ladder_section
from tcprof.profiler.report.sections import regional as regional_section
from tcprof.profiler.report.sections import script as script_section
from tcprof.profiler.report.sections import stragglers as straggler_section
from tcprof.profiler.report.sections import timeline as timeline_section
from tcprof.profiler.report.sections.cells import accuracy_title
from tcprof.profiler.report.sections.columns import COLUMN_HELP, NUMERIC_COLUMNS
from tcprof.profiler.report.sections.method import method_notes, steps_text
from tcprof.profiler.report.sections.provenance import provenance_line
from tcprof.profiler.report.sections.table import table_rows

# Characters with a meaning in GitHub Markdown (inline or in a table) get a backslash.
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>|#~!]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
MAX_ITEMS = 20


def md_text(value: Any) -> str:
    """Plain text that renders as itself: specials escaped, newlines folded into spaces."""
    text = " ".join(str("" if value is None else value).split())
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), text)


def md_cell(value: Any) -> str:
    return md_text(value) or " "


def md_code(value: Any) -> str:
    """Inline code that survives backticks inside the text; pipes still need a backslash when
    the span sits in a table cell, so this is used outside tables only."""
    text = " ".join(str(value).split())
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |"]
    lines.append("|" + "|".join("---:" if h in NUMERIC_COLUMNS else "---" for h in header) + "|")
    for row in rows:
        blank = (" " for _ in range(len(header) - len(row)))  # a short row's empty cells
        cells = [*(md_cell(c) for c in row), *blank]
        lines.append("| " + " | ".join(cells[: len(header)]) + " |")
    return "\n".join(lines)


def _insight(session: SessionModel) -> list[str]:
    items: list[str] = []
    for arm in session.arms:
        name = md_text(arm.name)
        for gb in arm.graph_breaks:
            items.append(
                f"- **{name}**: graph break ×{gb.count} at "
                f"{md_code(short_where(gb.file, gb.line))}: {md_text(gb.reason)}"
            )
        for rc in arm.recompiles:
            items.append(
                f"- **{name}**: recompile at bs={md_text(rc.batch_size)} in "
                f"{md_code(rc.frame or '?')}{_resume(rc.frame)}: "
                f"{md_text(plain_reason(dict(rc.data)))}"
            )
        for fb in arm.fallbacks:
            items.append(f"- **{name}**: {md_text(recompile_limit_hit(fb.frame))}")
    if len(items) > MAX_ITEMS:
        items = items[:MAX_ITEMS] + [f"- … and {len(items) - MAX_ITEMS} more (see report.html)"]
    for arm in session.arms:  # advice last: never cut by MAX_ITEMS
        for a in arm.advice:
            items.append(
                f"- **{md_text(arm.name)}** advice: {md_text(a.message)}. Fix: {md_text(a.fix)}"
            )
    return items


def _compiles(session: SessionModel) -> list[str]:
    """Each compiled arm's compiles, batch size by batch size, adding up to its compile cost."""
    out: list[str] = []
    for arm in session.arms:
        lines = [
            line
            for row in arm.rows
            for line in compile_list.markdown_lines(session, row, md_text, arm)
        ]
        if lines:
            out += [f"**Compile time: {md_text(arm.name)}**", "", *lines]
    return out


def _resume(frame: Any) -> str:
    """' (the rest of forward after the graph break at line 16, …)' for a resume function."""
    why = resume_explanation(frame)
    return f" ({md_text(why.replace('`', ''))})" if why else ""


def _errors(session: SessionModel) -> list[str]:
    return [
        f"- **{md_text(arm.name)}**: {md_text(arm.error.kind)} error: {md_text(arm.error.message)}"
        for arm in session.arms
        if arm.error
    ]


def _environment_line(session: SessionModel) -> str:
    env = session.runtime
    options = session.options
    parts = []
    if session.environment and env:
        parts.append(f"torch {env.torch}")
        parts.append(f"python {env.python}")
        parts.append(f"{env.device} ({env.device_name})")
    if session.config:
        config = thaw(session.config)  # config's own wording reads the options as saved
        parts.append(loop_text(config))
        if options.host:
            parts.append(f"on {where_text(config)}")
        parts.append(f"{options.optimizer} lr={options.lr}")
        parts.append(steps_text(session))
        parts.append(f"seed {options.seed}")
        if options.weights:
            parts.append(f"weights {Path(options.weights).name}")
    return " · ".join(md_text(p) for p in parts)


def render_markdown(model: SessionModel, folder: Any = None) -> str:
    """report.md; `folder` is where it is written (links are relative to it)."""
    header, rows = table_rows(model)
    out = [f"### torch.compile profile: {md_text(model_label(model))}", ""]
    provenance = provenance_line(model)
    if provenance:
        out += [f"<sub>{md_text(provenance)}</sub>", ""]
    status = model.status
    if status not in ("completed", "unknown"):  # unknown: a session saved without one
        out += [f"**Run {md_text(status)}**: the table holds what was measured.", ""]
    verdicts = model.verdicts
    if verdicts:
        out += [*(f"- **{md_text(line)}**" for line in verdicts), ""]
    notes = model.notes
    if notes:
        out += [*(f"- _{md_text(line)}_" for line in notes), ""]
    out.append(table(header, rows) if rows else "_No batch size was measured._")
    out.append("")
    note = " ".join(n[0].upper() + n[1:] + "." for n in method_notes(model))
    if rows:
        note += f" Memory: {COLUMN_HELP['memory']}."
    fails = [
        f"{row.arm} bs {row.batch_size}: {accuracy_title(row.accuracy)}"
        for row in model.rows
        if row.accuracy and row.accuracy.status == "fail"
    ]
    if fails:
        note += " Accuracy failures: " + "; ".join(fails) + "."
    out += [note, ""]
    out += script_section.markdown_lines(model, md_text)
    insight = _insight(model)
    if insight:
        out += ["**Graph breaks and recompiles**", "", *insight, ""]
    out += _compiles(model)
    out += ladder_section.markdown_lines(model, md_text)
    out += regional_section.markdown_lines(model, md_text)
    out += straggler_section.markdown_lines(model.to_dict(), md_text)  # its section reads the dict
    out += timeline_section.markdown_lines(model, md_text)
    out += top_ops.markdown_lines(model, md_text)
    out += artefacts.markdown_lines(model, md_text, folder)
    errors = _errors(model)
    if errors:
        out += ["**Errors**", "", *errors, ""]
    env_line = _environment_line(model)
    if env_line:
        out += [f"<sub>{env_line} · measured with tcprof</sub>", ""]
    return "\n".join(out)
