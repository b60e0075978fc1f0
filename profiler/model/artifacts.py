"""A file an arm left beside the session (its trained weights: a state_dict), typed and
read-only: what kind, where, at which batch size, its format and tensors, and whether a strict
load into a fresh eager model verified it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_str as _str


@dataclass(frozen=True)
class Artifact:
    kind: str | None
    path: str | None
    batch_size: int | None
    format: str | None
    tensors: int | None
    verified: bool

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Artifact:
        return cls(
            _str(value.get("kind")),
            _str(value.get("path")),
            _int(value.get("batch_size")),
            _str(value.get("format")),
            _int(value.get("tensors")),
            value.get("verified") is True,
        )
