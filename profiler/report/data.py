"""Shared pieces of the reports: JSON that is safe inside an HTML <script> element, and labels
for the model and for code locations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.wire import jsonsafe

# Characters that could end a <script> element, open a comment, or break a JS string literal.
_SCRIPT_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def script_json(value: Any) -> str:
    """JSON to embed in HTML <script>: `</script>`, `<!--` and U+2028/2029 cannot break out."""
    text = json.dumps(jsonsafe(value), allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    return "".join(_SCRIPT_ESCAPES.get(c, c) for c in text)


def model_label(model: SessionModel) -> str:
    """'SimpleModel() from simple.py', from the first arm that loaded the model."""
    file = Path(model.options.source.path or "model.py").name
    script = model.options.script
    if script is not None:
        return f"the script {file}" + (f" (sweep {script.sweep})" if script.sweep else "")
    how = next((a.loaded.model for a in model.arms if a.loaded and a.loaded.model), None)
    if how:
        return f"{how} from {file}"
    name = model.options.source.factory or model.options.source.model
    return f"{name} from {file}" if name else file


def short_where(file: Any, line: Any) -> str:
    if not file:
        return "?"
    return f"{Path(str(file)).name}:{line}" if line is not None else Path(str(file)).name
