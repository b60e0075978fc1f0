"""CUDA graphs an arm's mode asked for and did not get (`arms[].cudagraph_skips`), typed and
read-only: the advice says why, where and at which batch sizes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_str as _str


@dataclass(frozen=True)
class CudagraphSkip:
    """One reason CUDA graphs were skipped, at a batch size and step, where, and how often
    (`count` None: once, as sessions before the count say it)."""

    batch_size: int | None
    step: int | None
    reason: str | None
    count: int | None
    file: str | None
    line: int | None

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> CudagraphSkip:
        return cls(
            _int(value.get("batch_size")),
            _int(value.get("step")),
            _str(value.get("reason")),
            _int(value.get("count")),
            _str(value.get("file")),
            _int(value.get("line")),
        )
