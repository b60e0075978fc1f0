"""The run events the live plots read, parsed once at the edge into typed records.

An event is raw JSON off the worker's channel (or a saved events.jsonl); `parse` reads the
fields the plots use, tolerant as the plots always were (a missing or ill-typed field reads as
None or its default), so LiveData reads attributes. Types the plots do not draw parse to None.
Their fields are the protocol's (profiler/protocol/events.py); `timer` and `cost` are what a
replayed session's compile events add (profiler/folders/replay.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tcprof.profiler.model.json_values import as_float, as_int, as_str
from tcprof.profiler.model.session import SessionModel


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


def _list(value: Any) -> list[Any] | None:
    return value if isinstance(value, list) else None


def _where(event: Mapping[str, Any]) -> Where:
    replicate = event.get("replicate")
    return Where(
        arm=as_int(event.get("arm")),
        round=as_int(replicate) or 0,
        untimed=replicate is not None and as_int(replicate) is None,
        batch_size=as_int(event.get("batch_size")),
        t=as_float(event.get("t")),
    )


def _steps(event: Mapping[str, Any], where: Where) -> Steps:
    ms = event.get("ms")
    return Steps(
        where=where,
        ms=[] if ms is None else ms,
        start=int(event.get("start") or 0),
        block=as_int(event.get("block")),
        ms_fastest=_list(event.get("ms_fastest")),
        scripted="loss" in event or "own_ms" in event,
        loss=_list(event.get("loss")),
        own_ms=_list(event.get("own_ms")),
        samples=_list(event.get("samples")),
        tokens=_list(event.get("tokens")),
    )


def _memory(event: Mapping[str, Any], where: Where) -> Memory:
    return Memory(
        where=where,
        step=int(event.get("step") or 0),
        rss_mb=as_float(event.get("rss_mb")),
        cuda_alloc_mb=as_float(event.get("cuda_alloc_mb")),
        cuda_reserved_mb=as_float(event.get("cuda_reserved_mb")),
    )


def _compile(event: Mapping[str, Any], where: Where) -> Compile:
    return Compile(
        where=where,
        step=int(event.get("step") or 0),
        kind=str(event.get("kind") or "first"),
        seconds=as_float(event.get("seconds")),
        timer="compile_id" in event or event.get("timer") is True,
        cost=bool(event.get("cost")),
        frame=as_str(event.get("frame")),
        reason=as_str(event.get("reason")),
        backward_s=as_float(event.get("backward_s")),
        fail_type=as_str(event.get("fail_type")),
        fail_reason=as_str(event.get("fail_reason")),
    )


def _block_done(event: Mapping[str, Any], where: Where) -> BlockDone:
    return BlockDone(
        where=where,
        block=as_int(event.get("block")),
        steps=int(event.get("steps") or 0),
        contended=event.get("contended") is True,
        busy_elsewhere=float(event.get("busy_elsewhere") or 0.0),
    )


def _arms_added(event: Mapping[str, Any]) -> ArmsAdded:
    arms = [a for a in event.get("arms") or [] if isinstance(a, Mapping)]
    return ArmsAdded(
        tuple(
            ArmAdded(str(a.get("label") or a.get("backend")), str(a.get("backend"))) for a in arms
        )
    )


def parse(event: Mapping[str, Any]) -> LiveEvent | None:
    """The event as the plots read it; None for the types they do not draw."""
    kind = event.get("type")
    if kind == "arms_added":
        return _arms_added(event)
    if kind == "summary":
        session = event.get("session")
        return Summary(SessionModel.from_json(session)) if isinstance(session, dict) else None
    where = _where(event)
    if kind == "steps":
        return _steps(event, where)
    if kind == "memory":
        return _memory(event, where)
    if kind == "compile":
        return _compile(event, where)
    if kind == "block_done":
        return _block_done(event, where)
    if kind == "phase":
        return Phase(where, str(event.get("phase")), first_step=False)
    if kind in ("first_step", "worker_exit"):
        return Phase(where, None, first_step=kind == "first_step")
    return None
