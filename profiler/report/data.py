"""Shared pieces of the reports: steps rows from a session dict, strict JSON, and JSON that is
safe inside an HTML <script> element."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from profiler.events import jsonsafe
from profiler.outputs import STEPS_HEADER, rows_from_samples, safe_cell

# Characters that could end a <script> element, open a comment, or break a JS string literal.
_SCRIPT_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def session_json_text(session_dict: dict[str, Any]) -> str:
    """session.json as written by the engine: strict JSON, NaN and infinity as null."""
    return json.dumps(jsonsafe(session_dict), indent=1, allow_nan=False) + "\n"


def script_json(value: Any) -> str:
    """JSON to embed in HTML <script>: `</script>`, `<!--` and U+2028/2029 cannot break out."""
    text = json.dumps(jsonsafe(value), allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    return "".join(_SCRIPT_ESCAPES.get(c, c) for c in text)


def ordered_samples(session_dict: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in session_dict.get("samples") or [] if isinstance(s, dict)]


def steps_rows(session_dict: dict[str, Any]) -> list[list[Any]]:
    """The rows the engine writes to steps.csv, from a saved session."""
    return rows_from_samples(ordered_samples(session_dict))


def steps_csv_text(session_dict: dict[str, Any]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(STEPS_HEADER)
    for row in steps_rows(session_dict):
        writer.writerow([safe_cell(v) if v is not None else "" for v in row])
    return buf.getvalue()


def model_label(session_dict: dict[str, Any]) -> str:
    """'SimpleModel() from simple.py', from the first arm that loaded the model."""
    source = (session_dict.get("config") or {}).get("source") or {}
    file = Path(str(source.get("path") or "model.py")).name
    for arm in session_dict.get("arms") or []:
        how = (arm.get("model") or {}).get("model")
        if how:
            return f"{how} from {file}"
    name = source.get("factory") or source.get("model")
    return f"{name} from {file}" if name else file


def short_where(file: Any, line: Any) -> str:
    if not file:
        return "?"
    return f"{Path(str(file)).name}:{line}" if line is not None else Path(str(file)).name
