"""A model file's inspection as typed records: the worker's `model_info` answer (or the error
that stood in for it, inspection.py), read once here so that its readers (the window's Model
box, `tcprof inspect`) take attributes, not the wire's keys."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tcprof.profiler.model.json_values import as_int, as_str


@dataclass(frozen=True)
class Candidate:
    """A model the file defines: a class or a factory, its signature, and whether it is built
    without arguments."""

    name: str
    kind: str | None
    signature: str | None
    zero_arg: bool

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Candidate:
        return cls(
            name=str(value.get("name")),
            kind=as_str(value.get("kind")),
            signature=as_str(value.get("signature")),
            zero_arg=value.get("zero_arg") is True,
        )


@dataclass(frozen=True)
class InspectionError:
    """Why the file could not be inspected: its kind (syntax, load, crash, timeout, …), the
    message, and where a model could not be built (`stage`: import, build or input)."""

    kind: str | None
    message: str | None
    stage: str | None = None
    file: str | None = None
    line: int | None = None
    needs_arguments: bool = False
    cause: str | None = None
    traceback: str | None = None

    @classmethod
    def of(cls, value: object) -> InspectionError | None:
        if not isinstance(value, Mapping) or not value:
            return None
        return cls(
            kind=as_str(value.get("kind")),
            message=as_str(value.get("message")),
            stage=as_str(value.get("stage")),
            file=as_str(value.get("file")),
            line=as_int(value.get("line")),
            needs_arguments=bool(value.get("needs_arguments")),
            cause=as_str(value.get("cause")),
            traceback=as_str(value.get("traceback")),
        )


@dataclass(frozen=True)
class Inspection:
    """What a model file defines (`candidates`), the one a run builds (`chosen`), its
    parameters and inferred input, the step probe's timings (passed on as they came, to the run
    estimate), or the `error`. `answered` is False for the empty answer (nothing inspected)."""

    answered: bool
    candidates: tuple[Candidate, ...] = ()
    chosen: str | None = None
    params: int | None = None
    input: str | None = None
    error: InspectionError | None = None
    probe: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)

    @classmethod
    def of(cls, answer: Mapping[str, Any]) -> Inspection:
        candidates = answer.get("candidates") or ()
        probe = answer.get("probe")
        return cls(
            answered=bool(answer),
            candidates=tuple(Candidate.of(c) for c in candidates if isinstance(c, Mapping)),
            chosen=as_str(answer.get("chosen")),
            params=as_int(answer.get("params")),
            input=as_str(answer.get("input")),
            error=InspectionError.of(answer.get("error")),
            probe=probe if isinstance(probe, Mapping) else None,
        )
