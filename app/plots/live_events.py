"""The run events the live plots read, parsed once at the edge into typed records.

An event is raw JSON off the worker's channel (or a saved events.jsonl); `parse` reads the
fields the plots use, tolerant as the plots always were (a missing or ill-typed field reads as
None or its default), so LiveData reads attributes. Types the plots do not draw parse to None.
Each record's fields are read by the name the protocol declares for its event kind
(profiler/protocol/events.py's TypedDicts, through `EVENT_FIELDS`): a field is read from the wire
only where that kind declares it, so the names are not spelled again here. `timer` and `cost`
are what a replayed session's compile events add (profiler/folders/replay.py); the event's type,
its round (`replicate`), a summary's session and the added arms are read at this one wire edge.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, TypeVar, cast, get_type_hints

import numpy as np

from tcprof.profiler.model.json_values import as_float, as_int, as_str
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.events import (
    EVENT_FIELDS,
    ArmsAddedEvent,
    CompileEvent,
    EventType,
    Relayed,
    StepsEvent,
)


@dataclass(frozen=True, slots=True)
class Where:
    """What every relayed event carries: the arm's index, its round (0 when it says none), whether
    it is the untimed accuracy pass (a round of "accuracy"), its batch size and the run's time
    (s)."""

    arm: int | None
    round: int
    untimed: bool
    batch_size: int | None
    t: float | None


@dataclass(frozen=True, slots=True)
class Steps:
    where: Where
    ms: list[float] | np.ndarray
    start: int
    block: int | None
    ms_fastest: list[float] | None  # a distributed arm: the fastest rank's
    scripted: bool  # a script's steps: they carry their loss or own time
    loss: list[float | None] | None
    own_ms: list[float | None] | None
    samples: list[Any] | None
    tokens: list[Any] | None


@dataclass(frozen=True, slots=True)
class Memory:
    where: Where
    step: int
    rss_mb: float | None
    cuda_alloc_mb: float | None
    cuda_reserved_mb: float | None


@dataclass(frozen=True, slots=True)
class Compile:
    where: Where
    step: int
    kind: str  # first | recompile
    seconds: float | None
    timer: bool  # `seconds` is torch's compile timer (a worker's event, or a replay's saying so)
    cost: bool  # `seconds` is the compile cost (a replayed session without the timer's figure)
    frame: str | None
    reason: str | None
    backward_s: float | None
    fail_type: str | None
    fail_reason: str | None


@dataclass(frozen=True, slots=True)
class Phase:
    """A `phase` event (`phase` set), or an arm's first step or its process's end (None)."""

    where: Where
    phase: str | None
    first_step: bool  # its first step came (else, for phase None: its process ended)


@dataclass(frozen=True, slots=True)
class BlockDone:
    where: Where
    block: int | None
    steps: int
    contended: bool
    busy_elsewhere: float


@dataclass(frozen=True, slots=True)
class ArmAdded:
    """An arm --apply-advice derived, joining the plots."""

    label: str
    backend: str


@dataclass(frozen=True, slots=True)
class ArmsAdded:
    arms: tuple[ArmAdded, ...]


@dataclass(frozen=True, slots=True)
class Summary:
    """The application's live summary: the session so far."""

    session: SessionModel


LiveEvent = Steps | Memory | Compile | Phase | BlockDone | ArmsAdded | Summary


R = TypeVar("R", bound=Hashable)


def _list(value: Any) -> list[Any] | None:
    return value if isinstance(value, list) else None


def _count(value: Any) -> int:
    return int(value or 0)


def _amount(value: Any) -> float:
    return float(value or 0.0)


def _raw(value: Any) -> Any:
    return value


# How a wire value becomes a record's field, by the field's declared type.
_COERCE: dict[str, Callable[[Any], Any]] = {
    "int": _count,
    "int | None": as_int,
    "float": _amount,
    "float | None": as_float,
    "str | None": as_str,
    "bool": lambda value: value is True,
    "object": _raw,
}


def _coerce(annotation: str) -> Callable[[Any], Any]:
    if annotation.startswith("list[") and annotation.endswith("| None"):
        return _list
    return _COERCE[annotation]


@cache
def _wire_fields(
    record: type, declared: type, given: frozenset[str]
) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """The fields of `record` the protocol declares for the kind (`declared`), each with how its
    wire value is read; worked out once per pair, as events come many a second."""
    wire = get_type_hints(declared)
    return tuple(
        (f.name, _coerce(str(f.type)))
        for f in fields(record)
        if f.name in wire and f.name not in given
    )


def _read(record: type[R], declared: type, event: Mapping[str, Any], **given: Any) -> R:
    """`record` built from `event`: each field the protocol declares for the kind read by its
    name and coerced by its type; the rest are `given`."""
    values = {
        name: read(event.get(name))
        for name, read in _wire_fields(record, declared, frozenset(given))
    }
    return record(**(values | given))


class _Placed(Relayed, total=False):
    """What the plots place an event by: the relayed fields, and the batch size that the engine
    adds to an arm's events where the worker's kind does not declare it (its process's end)."""

    batch_size: int


class _Replayed(CompileEvent, total=False):
    """A compile event as a replayed session's events say it (profiler/folders/replay.py):
    whether `seconds` is torch's compile timer, or the row's compile cost."""

    timer: bool
    cost: bool


@dataclass(frozen=True, slots=True)
class _Relay:
    """The relayed fields as the wire spells them (`replicate`: a round or "accuracy")."""

    arm: int | None
    replicate: object
    batch_size: int | None
    t: float | None


def _where(event: _Placed) -> Where:
    relay = _read(_Relay, _Placed, event)
    return Where(
        arm=relay.arm,
        round=as_int(relay.replicate) or 0,
        untimed=relay.replicate is not None and as_int(relay.replicate) is None,
        batch_size=relay.batch_size,
        t=relay.t,
    )


def _steps(event: StepsEvent, where: Where) -> Steps:
    ms = event.get("ms")
    declared = EVENT_FIELDS[EventType.STEPS]
    scripted = any(name in event for name in ("loss", "own_ms"))
    return _read(
        Steps, declared, event, where=where, ms=[] if ms is None else ms, scripted=scripted
    )


def _compile(event: _Replayed, where: Where) -> Compile:
    timer = "compile_id" in event or event.get("timer") is True  # replay.py's, beside the wire's
    kind = str(event.get("kind") or "first")
    cost = bool(event.get("cost"))
    return _read(
        Compile,
        EVENT_FIELDS[EventType.COMPILE],
        event,
        where=where,
        kind=kind,
        timer=timer,
        cost=cost,
    )


def _arms_added(event: ArmsAddedEvent) -> ArmsAdded:
    arms = [a for a in event.get("arms") or [] if isinstance(a, Mapping)]
    return ArmsAdded(
        tuple(
            ArmAdded(str(a.get("label") or a.get("backend")), str(a.get("backend"))) for a in arms
        )
    )


def parse(event: Mapping[str, Any]) -> LiveEvent | None:
    """The event as the plots read it; None for the types they do not draw. Its type says
    which of the protocol's shapes it has (events.py), and the readers below take that shape."""
    kind = event.get("type")
    if kind == EventType.ARMS_ADDED:
        return _arms_added(cast(ArmsAddedEvent, event))
    if kind == EventType.SUMMARY:
        session = event.get("session")
        return Summary(SessionModel.from_json(session)) if isinstance(session, dict) else None
    where = _where(cast(_Placed, event))
    if kind == EventType.STEPS:
        return _steps(cast(StepsEvent, event), where)
    if kind == EventType.COMPILE:
        return _compile(cast(_Replayed, event), where)
    if kind in (EventType.MEMORY, EventType.BLOCK_DONE):
        declared = EVENT_FIELDS[EventType(kind)]
        if kind == EventType.MEMORY:
            return _read(Memory, declared, event, where=where)
        return _read(BlockDone, declared, event, where=where)
    if kind == EventType.PHASE:
        return Phase(where, str(event.get("phase")), first_step=False)
    if kind in (EventType.FIRST_STEP, EventType.WORKER_EXIT):
        return Phase(where, None, first_step=kind == EventType.FIRST_STEP)
    return None
