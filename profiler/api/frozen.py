"""JSON values made read-only, and back: a Session's raw parts (its config, a row as session.json
holds it) are handed out as mappings and tuples nobody can change under it."""

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
