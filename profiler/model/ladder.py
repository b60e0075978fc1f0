"""A backend ladder's summary (`--ladder`: session.json's `ladder`, from analysis/ladder.py),
typed and read-only: per stage what it adds over the one before, at each batch size, its
accuracy; the first stage that diverged from eager and the minifier command that fits it.
Sessions that are not ladders have none."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_float, as_int, as_str, items


@dataclass(frozen=True)
class StageFigures:
    """A stage at one batch size: its median step, what it adds over the stage before (ms),
    its compile time and its steady training peak."""

    batch_size: int | None
    median_ms: float | None
    added_ms: float | None
    compile_s: float | None
    steady_peak_mb: float | None

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> StageFigures:
        return cls(
            as_int(value.get("batch_size")),
            as_float(value.get("median_ms")),
            as_float(value.get("added_ms")),
            as_float(value.get("compile_s")),
            as_float(value.get("steady_peak_mb")),
        )


@dataclass(frozen=True)
class LadderStage:
    """One stage (a backend): what it adds, its accuracy against eager (pass, fail, baseline,
    fell back, not checked, ...), the batch sizes where it fell back, its figures."""

    stage: str | None
    what: str | None
    accuracy: str | None
    forward_only: bool
    error: str | None
    fell_back: tuple[int, ...]
    figures: tuple[StageFigures, ...]

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> LadderStage:
        return cls(
            as_str(value.get("stage")),
            as_str(value.get("what")),
            as_str(value.get("accuracy")),
            value.get("forward_only") is True,
            as_str(value.get("error")),
            tuple(b for b in map(as_int, value.get("fell_back") or ()) if b is not None),
            tuple(StageFigures.of(p) for p in items(value.get("per_batch_size"))),
        )


@dataclass(frozen=True)
class Ladder:
    """The ladder's stages in order; `first_divergence` the first stage whose accuracy failed
    (None: none did) and `minifier` the command that shrinks it; `all_fell_back`: every
    compiled stage ran eagerly."""

    stages: tuple[LadderStage, ...]
    all_fell_back: bool
    first_divergence: str | None
    minifier: str | None

    @classmethod
    def of(cls, value: Any) -> Ladder | None:
        if not isinstance(value, Mapping) or not value:
            return None
        return cls(
            tuple(LadderStage.of(s) for s in items(value.get("stages"))),
            value.get("all_fell_back") is True,
            as_str(value.get("first_divergence")),
            as_str(value.get("minifier")),
        )
