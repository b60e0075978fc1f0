"""JSON from files tcprof did not necessarily write: parsed within limits, refused in one line.

Python's json module recurses once per nesting level, so a few thousand `[` raise
RecursionError; readers that walk the result recurse too. The nesting depth is therefore
measured on the text first, without recursion, and anything deeper than any session is
refused before it is parsed. NaN and Infinity become null, as the engine's own writer writes
them.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64  # a session nests about eight levels deep
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


class JsonProblem(ValueError):
    """The text is not JSON tcprof reads (the message says why, in one line, without the file)."""


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether arrays and objects nest more than `limit` levels (strings can hold brackets).

    Each pass removes the innermost pairs, so `limit` passes empty a document of that depth;
    text that stops shrinking is malformed and left for the parser to name."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(limit):
        shorter = _INNERMOST.sub("", brackets)
        if not shorter or shorter == brackets:
            return False
        brackets = shorter
    return _INNERMOST.search(brackets) is not None


def loads(text: str, limit: int = MAX_DEPTH) -> Any:
    """Parse `text`; JsonProblem (one line) when it is not JSON or nests too deeply."""
    if too_deep(text, limit):
        raise JsonProblem(f"nests deeper than {limit} levels")
    try:
        return json.loads(text, parse_constant=lambda _c: None)
    except json.JSONDecodeError as exc:
        raise JsonProblem(f"is not valid JSON (line {exc.lineno}, column {exc.colno})") from exc
    except RecursionError as exc:  # a parser with a lower limit than ours
        raise JsonProblem(f"nests too deeply to read ({exc})") from exc
