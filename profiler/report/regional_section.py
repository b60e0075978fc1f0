"""The "Regional vs whole-model compile" part of the reports, from session['regional'].

Only sessions with a `regional=true` arm beside its whole-model twin have it; the reports
leave the section out otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Esc = Callable[[Any], str]
EXPLAIN = (
    "Compiling only the repeated block compiles faster; a block boundary can cost fusion, so "
    "a step may be slower. Break-even: the number of steps after which the slower-compiling "
    "arm's faster steps have repaid its extra compile (cold compile when measured)."
)


def rows(session_dict: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in session_dict.get("regional") or [] if isinstance(r, dict)]


def _num(value: Any, fmt: str) -> str:
    return format(value, fmt) if isinstance(value, (int, float)) else "-"


def cells(row: dict[str, Any]) -> list[str]:
    """regional, whole, bs, compile s saved, ms/step lost, break-even steps, verdict."""
    return [
        str(row.get("regional")),
        str(row.get("whole")),
        str(row.get("batch_size")),
        _num(row.get("compile_saved_s"), "+.2f"),
        _num(row.get("step_ms_lost"), "+.3f"),
        _num(row.get("break_even_steps"), ",d"),
        str(row.get("verdict")),
    ]


HEADER = [
    "regional",
    "whole model",
    "bs",
    "compile s saved",
    "ms/step lost",
    "break-even steps",
    "verdict",
]


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


def text_lines(session_dict: dict[str, Any]) -> list[str]:
    """For the terminal after `tcprof run`."""
    found = rows(session_dict)
    if not found:
        return []
    out = ["Regional vs whole-model compile:"]
    for r in found:
        c = cells(r)
        out.append(
            f"  {c[0]} vs {c[1]} bs {c[2]}: {c[3]} s compile, {c[4]} ms/step, "
            f"break-even {c[5]} steps: {c[6]}"
        )
    return out
