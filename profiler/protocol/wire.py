"""The event protocol's wire format and version check: how an event (profiler/protocol/
events.py declares them) travels as one line of strict JSON, and whether a worker speaks this
engine's version of the protocol."""

from __future__ import annotations

import json
import math
from typing import Any

from tcprof.profiler.protocol import events
from tcprof.profiler.protocol.events import EventType
from tcprof.profiler.protocol.types import Event


def check_hello(event: Event) -> str | None:
    """Why a `hello` cannot be accepted (a worker of another protocol version), or None.

    Useful once a worker runs from another install (a remote host): both sides must read the
    same events the same way. A hello without `protocol` comes from version 1."""
    theirs = event.get("protocol", 1)
    ours = events.PROTOCOL_VERSION  # read at each call: one declaration, there
    if theirs == ours:
        return None
    return (
        f"worker speaks protocol {theirs}, this tcprof speaks {ours}: "
        "install the same tcprof on both sides"
    )


def screen_hello(event: Event) -> Event:
    """The event itself, or, for a hello of another protocol version, a fatal `protocol` error
    to relay in its place (the receiving side then fails the arm as for any fatal error)."""
    if event.get("type") != EventType.HELLO:
        return event
    problem = check_hello(event)
    if problem is None:
        return event
    return {"type": EventType.ERROR.value, "kind": "protocol", "message": problem, "fatal": True}


def jsonsafe(value: Any) -> Any:
    """NaN and infinity become null, so every file we write is strict JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): jsonsafe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonsafe(v) for v in value]
    return value


def encode(event: Event) -> bytes:
    return (json.dumps(jsonsafe(event), allow_nan=False, separators=(",", ":")) + "\n").encode()


def decode(line: bytes | str) -> Event:
    event = json.loads(line)
    if not isinstance(event, dict) or "type" not in event:
        raise ValueError("not an event")
    return event
