"""A plain table of text cells in report.html and report.md, for the sections whose cells are
all escaped text (regional, ranks, a script's split): one way to write one."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

Esc = Callable[[Any], str]


def table_html(header: Sequence[str], rows: Iterable[Sequence[Any]], esc: Esc) -> str:
    """The header and rows as report.html's scrolling table, every cell escaped."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return (
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def table_markdown(
    header: Sequence[str], rows: Iterable[Sequence[Any]], md_text: Callable[[Any], str]
) -> list[str]:
    """The header and rows as report.md's table lines, every cell made Markdown-safe."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return out + ["| " + " | ".join(md_text(c) for c in r) + " |" for r in rows]
