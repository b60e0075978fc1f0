"""A saved row as the model reads it, for tests that build a bare row dict by hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.row import Row


def row_of(row: Row | Mapping[str, Any]) -> Row:
    """The typed row of a session.json row (a bare one may lack its arm and batch size)."""
    if isinstance(row, Row):
        return row
    return Row.of(str(row.get("arm") or ""), thaw({"batch_size": 0, **row}), False)
