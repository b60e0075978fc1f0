"""report.md: the summary as a GitHub Markdown table, ready to paste into a pull request."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis.user_words import plain_reason
from tcprof.profiler.analysis.verdict import session_notes, verdict_lines
from tcprof.profiler.config import loop_text, where_text
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
from tcprof.profiler.report.sections.provenance import provenance_line
from tcprof.profiler.report.sections.table import (
    COLUMN_HELP,
    NUMERIC_COLUMNS,
    accuracy_title,
    method_notes,
    steps_text,
    table_rows,
)

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
        cells = [md_cell(c) for c in row] + [" "] * (len(header) - len(row))
        lines.append("| " + " | ".join(cells[: len(header)]) + " |")
    return "\n".join(lines)


def _insight(session_dict: dict[str, Any]) -> list[str]:
    items: list[str] = []
    for arm in session_dict.get("arms") or []:
        name = md_text(arm.get("name"))
        for gb in arm.get("graph_breaks") or []:
            items.append(
                f"- **{name}**: graph break ×{gb.get('count')} at "
                f"{md_code(short_where(gb.get('file'), gb.get('line')))}: {md_text(gb.get('reason'))}"
            )
        for rc in arm.get("recompiles") or []:
            items.append(
                f"- **{name}**: recompile at bs={md_text(rc.get('batch_size'))} in "
                f"{md_code(rc.get('frame') or '?')}{_resume(rc.get('frame'))}: {md_text(plain_reason(rc))}"
            )
        for fb in arm.get("fallbacks") or []:
            items.append(f"- **{name}**: {md_text(recompile_limit_hit(fb.get('frame')))}")
    if len(items) > MAX_ITEMS:
        items = items[:MAX_ITEMS] + [f"- … and {len(items) - MAX_ITEMS} more (see report.html)"]
    for arm in session_dict.get("arms") or []:  # advice last: never cut by MAX_ITEMS
        for a in arm.get("advice") or []:
            items.append(
                f"- **{md_text(arm.get('name'))}** advice: {md_text(a.get('message'))}. "
                f"Fix: {md_text(a.get('fix'))}"
            )
    return items


def _compiles(session_dict: dict[str, Any]) -> list[str]:
    """Each compiled arm's compiles, batch size by batch size, adding up to its compile cost."""
    out: list[str] = []
    for arm in session_dict.get("arms") or []:
        lines = [
            line
            for row in arm.get("results") or []
            for line in compile_list.markdown_lines(session_dict, row, md_text, arm)
        ]
        if lines:
            out += [f"**Compile time: {md_text(arm.get('name'))}**", "", *lines]
    return out


def _resume(frame: Any) -> str:
    """' (the rest of forward after the graph break at line 16, …)' for a resume function."""
    why = resume_explanation(frame)
    return f" ({md_text(why.replace('`', ''))})" if why else ""


def _errors(session_dict: dict[str, Any]) -> list[str]:
    out = []
    for arm in session_dict.get("arms") or []:
        err = arm.get("error")
        if err:
            out.append(
                f"- **{md_text(arm.get('name'))}**: {md_text(err.get('kind'))} error: "
                f"{md_text(err.get('message'))}"
            )
    return out


def _environment_line(session_dict: dict[str, Any]) -> str:
    env = session_dict.get("environment") or {}
    cfg = session_dict.get("config") or {}
    parts = []
    if env:
        parts.append(f"torch {env.get('torch')}")
        parts.append(f"python {env.get('python')}")
        parts.append(f"{env.get('device')} ({env.get('device_name')})")
    if cfg:
        parts.append(loop_text(cfg))
        if cfg.get("host"):
            parts.append(f"on {where_text(cfg)}")
        parts.append(f"{cfg.get('optimizer')} lr={cfg.get('lr')}")
        parts.append(steps_text(session_dict))
        parts.append(f"seed {cfg.get('seed')}")
        if cfg.get("weights"):
            parts.append(f"weights {Path(str(cfg['weights'])).name}")
    return " · ".join(md_text(p) for p in parts)


def render_markdown(session_dict: dict[str, Any], folder: Any = None) -> str:
    """report.md; `folder` is where it is written (links are relative to it)."""
    header, rows = table_rows(session_dict)
    out = [f"### torch.compile profile: {md_text(model_label(session_dict))}", ""]
    provenance = provenance_line(session_dict)
    if provenance:
        out += [f"<sub>{md_text(provenance)}</sub>", ""]
    status = session_dict.get("status")
    if status and status != "completed":
        out += [f"**Run {md_text(status)}**: the table holds what was measured.", ""]
    verdicts = verdict_lines(session_dict)
    if verdicts:
        out += [*(f"- **{md_text(line)}**" for line in verdicts), ""]
    notes = session_notes(session_dict)
    if notes:
        out += [*(f"- _{md_text(line)}_" for line in notes), ""]
    out.append(table(header, rows) if rows else "_No batch size was measured._")
    out.append("")
    note = " ".join(n[0].upper() + n[1:] + "." for n in method_notes(session_dict))
    if rows:
        note += f" Memory: {COLUMN_HELP['memory']}."
    fails = [
        f"{a['name']} bs {r['batch_size']}: {accuracy_title(r['accuracy'])}"
        for a in session_dict.get("arms") or []
        for r in a.get("results") or []
        if (r.get("accuracy") or {}).get("status") == "fail"
    ]
    if fails:
        note += " Accuracy failures: " + "; ".join(fails) + "."
    out += [note, ""]
    out += script_section.markdown_lines(session_dict, md_text)
    insight = _insight(session_dict)
    if insight:
        out += ["**Graph breaks and recompiles**", "", *insight, ""]
    out += _compiles(session_dict)
    out += ladder_section.markdown_lines(session_dict, md_text)
    out += regional_section.markdown_lines(session_dict, md_text)
    out += straggler_section.markdown_lines(session_dict, md_text)
    out += timeline_section.markdown_lines(session_dict, md_text)
    out += top_ops.markdown_lines(session_dict, md_text)
    out += artefacts.markdown_lines(session_dict, md_text, folder)
    errors = _errors(session_dict)
    if errors:
        out += ["**Errors**", "", *errors, ""]
    env_line = _environment_line(session_dict)
    if env_line:
        out += [f"<sub>{env_line} · measured with tcprof</sub>", ""]
    return "\n".join(out)
