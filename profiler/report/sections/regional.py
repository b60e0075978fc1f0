"""The "Regional vs whole-model compile" part of the reports, from session['regional'].

Only sessions with a `regional=true` arm beside its whole-model twin have it; the reports
leave the section out otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tcprof.profiler.analysis.regional import HEADER, cells
from tcprof.profiler.analysis.regional import rows as rows  # the report asks: any rows?

Esc = Callable[[Any], str]
EXPLAIN = (
    "Compiling only the repeated block compiles faster; a block boundary can cost fusion, so "
    "a step may be slower. Break-even: the number of steps after which the slower-compiling "
    "arm's faster steps have repaid its extra compile (cold compile when measured)."
)


def html_section(session_dict: dict[str, Any], esc: Esc) -> str:
    found = rows(session_dict)
    if not found:
        return ""
    head = "".join(f"<th>{esc(h)}</th>" for h in HEADER)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells(r)) + "</tr>" for r in found
    )
    return (
        '<section id="regional"><h2>Regional vs whole-model compile</h2>'
        f'<p class="note">{esc(EXPLAIN)}</p>'
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div></section>"
    )


def markdown_lines(session_dict: dict[str, Any], md_text: Callable[[Any], str]) -> list[str]:
    found = rows(session_dict)
    if not found:
        return []
    out = ["**Regional vs whole-model compile**", "", "| " + " | ".join(HEADER) + " |"]
    out.append("|" + "---|" * len(HEADER))
    out += ["| " + " | ".join(md_text(c) for c in cells(r)) + " |" for r in found]
    return [*out, ""]
