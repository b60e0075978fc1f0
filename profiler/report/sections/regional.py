"""The "Regional vs whole-model compile" part of the reports, from the session model's
`regional` tradeoffs (model/regional.py).

Only sessions with a `regional=true` arm beside its whole-model twin have it; the reports
leave the section out otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tcprof.profiler.analysis.regional import HEADER, cells
from tcprof.profiler.analysis.regional import rows as rows  # the report asks: any rows?
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.html_table import table_html, table_markdown

Esc = Callable[[Any], str]
EXPLAIN = (
    "Compiling only the repeated block compiles faster; a block boundary can cost fusion, so "
    "a step may be slower. Break-even: the number of steps after which the slower-compiling "
    "arm's faster steps have repaid its extra compile (cold compile when measured)."
)


def html_section(session: SessionModel, esc: Esc) -> str:
    found = rows(session)
    if not found:
        return ""
    return (
        '<section id="regional"><h2>Regional vs whole-model compile</h2>'
        f'<p class="note">{esc(EXPLAIN)}</p>'
        f"{table_html(HEADER, map(cells, found), esc)}</section>"
    )


def markdown_lines(session: SessionModel, md_text: Callable[[Any], str]) -> list[str]:
    found = rows(session)
    if not found:
        return []
    out = ["**Regional vs whole-model compile**", ""]
    return [*out, *table_markdown(HEADER, map(cells, found), md_text), ""]
