"""JSON values made read-only, and back: a session's raw parts (its config, a row as session.json
holds it) are handed out as mappings and tuples nobody can change under it; and the one reading
of a JSON value as a typed one (a number, an integer, a text), tolerant of what old or
hand-edited sessions hold."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


def freeze(value: Any) -> Any:
    """dicts as read-only mappings and lists as tuples, all the way down."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A frozen value as plain JSON again (dicts and lists), a copy the caller owns."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


EMPTY: Mapping[str, Any] = MappingProxyType({})


def as_float(value: Any) -> float | None:
    """A JSON number as a float; anything else (a bool, a string, null) as None."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_map(value: Any) -> Mapping[str, Any]:
    """A JSON object, read-only; anything else (missing, null) as an empty one."""
    return freeze(value) if isinstance(value, Mapping) else EMPTY


def items(value: Any) -> list[Mapping[str, Any]]:
    """The objects of a JSON list (missing, null or not a list: none)."""
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, (list, tuple)) else []
