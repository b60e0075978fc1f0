"""The names of the engine's JSON values, declared once and imported everywhere (the window's
too): an event as it travels (`Event`; which fields each type has is its TypedDict in
events.py), whoever hears the events (`Listener`), and any other JSON object read or written
(`Json`: a session.json dict, a row, an estimate's input). Plain dicts, as the wire has them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

Event: TypeAlias = dict[str, Any]
Json: TypeAlias = dict[str, Any]
Listener: TypeAlias = Callable[[Event], None]
