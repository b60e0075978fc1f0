"""JSON values made read-only, and back: a session's raw parts (its config, a row as session.json
holds it) are handed out as mappings and tuples nobody can change under it; and the one reading
of a JSON value as a typed one (a number, an integer, a text), tolerant of what old or
hand-edited sessions hold."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

_SCALARS = frozenset({int, float, str, bool, type(None)})


def _flat(values: list[Any] | tuple[Any, ...]) -> bool:
    """Whether a list holds only numbers, texts and nulls (a session's step times: thousands
    of them, copied at once rather than one by one)."""
    return all(type(v) in _SCALARS for v in values)


def freeze(value: Any) -> Any:
    """dicts as read-only mappings and lists as tuples, all the way down."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(value) if _flat(value) else tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A frozen value as plain JSON again (dicts and lists), a copy the caller owns."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return list(value) if _flat(value) else [thaw(v) for v in value]
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
