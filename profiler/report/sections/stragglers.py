"""The "Ranks" part of the reports: the straggler view of distributed arms (stragglers.py).

Only sessions with a distributed arm (`--parallel ddp|fsdp` with two or more ranks) have it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tcprof.profiler.analysis.stragglers import HEADER, Straggler, cells
from tcprof.profiler.analysis.stragglers import rows as rows  # the report asks: any rows?
from tcprof.profiler.report.sections.html_table import table_html, table_markdown

Esc = Callable[[Any], str]
EXPLAIN = (
    "Each rank's median step time. A data parallel step waits for the slowest rank, so the "
    "step time in the results is, per step, the slowest rank's; the spread is how much slower "
    "the slowest rank's median is than the fastest's. Every rank compiles its own copy of the "
    "model; DDP bucket splits are DDPOptimizer's graph splits at gradient bucket boundaries "
    "(expected, not graph breaks). Ranks whose compiles differ are flagged below the table."
)


def html_section(session_dict: dict[str, Any], esc: Esc) -> str:
    found = rows(session_dict)
    if not found:
        return ""
    notes = "".join(
        f'<p class="note"><strong>{esc(_note(r, n))}</strong></p>' for r in found for n in r.notes
    )
    return (
        '<section id="ranks"><h2>Ranks</h2>'
        f'<p class="note">{esc(EXPLAIN)}</p>'
        f"{table_html(HEADER, map(cells, found), esc)}{notes}</section>"
    )


def markdown_lines(session_dict: dict[str, Any], md_text: Callable[[Any], str]) -> list[str]:
    found = rows(session_dict)
    if not found:
        return []
    out = [
        "**Ranks**",
        "",
        md_text(EXPLAIN),
        "",
        *table_markdown(HEADER, map(cells, found), md_text),
    ]
    notes = [f"- **{md_text(_note(r, n))}**" for r in found for n in r.notes]
    return [*out, "", *notes, *([""] if notes else [])]


def _note(entry: Straggler, note: str) -> str:
    return f"{entry.arm} bs {entry.batch_size}: {note}"
