"""A training script's own figures in a session (config.script set: session/script_rows.py writes
them), typed and read-only: per row the step split into compute and the script's own time, its
start-up, unit of work and loss curve (`ScriptFigures`); per arm what its first round did and the
files it wrote (`ScriptArm`). A model file's session has none."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_float as _float
from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_str as _str
from tcprof.profiler.model.json_values import items

Point = tuple[float, float | None]  # (step, loss); None: a step with no finite loss


def _points(value: Any) -> tuple[Point, ...]:
    """[[step, loss], ...] as saved; pairs that are not two values are left out."""
    if not isinstance(value, (list, tuple)):
        return ()
    return tuple(
        (p[0], _float(p[1])) for p in value if isinstance(p, (list, tuple)) and len(p) == 2
    )


@dataclass(frozen=True)
class ScriptFigures:
    """A script row's figures: compute (the headline's median), the script's own time and the
    whole step (ms), own time's share of the step and whether that makes it data-bound, its
    start-up (s), the unit its throughput counts, the work per step in each unit and per second
    in its unit (`work_per_s`, per second of compute), its first round's loss curve."""

    compute_median_ms: float | None
    own_median_ms: float | None
    step_median_ms: float | None
    own_share: float | None
    data_bound: bool
    startup_s: float | None
    unit: str | None
    samples_per_step: float | None
    tokens_per_step: float | None
    loss_curve: tuple[Point, ...]
    work_per_s: float | None = None

    @classmethod
    def of(cls, value: Any) -> ScriptFigures | None:
        if not isinstance(value, Mapping):
            return None
        return cls(
            _float(value.get("compute_median_ms")),
            _float(value.get("own_median_ms")),
            _float(value.get("step_median_ms")),
            _float(value.get("own_share")),
            bool(value.get("data_bound")),
            _float(value.get("startup_s")),
            _str(value.get("unit")),
            _float(value.get("samples_per_step")),
            _float(value.get("tokens_per_step")),
            _points(value.get("loss_curve")),
            _float(value.get("work_per_s")),
        )

    @property
    def work_per_step(self) -> float | None:
        """The work per step in its own unit (None: no unit saved)."""
        return self.per_step(self.unit) if self.unit is not None else None

    def per_step(self, unit: str) -> float | None:
        """The work per step in `unit` (samples, tokens; a step is one step)."""
        if unit == "steps":
            return 1.0
        return {"samples": self.samples_per_step, "tokens": self.tokens_per_step}.get(unit)


@dataclass(frozen=True)
class ScriptNote:
    """What an arm's script did, in a sentence: its `kind` (model, in_place, files, ...)."""

    kind: str | None
    text: str | None


@dataclass(frozen=True)
class ScriptFile:
    """A file the script wrote, and its size in bytes (None: not known)."""

    path: str
    size: int | None


@dataclass(frozen=True)
class ScriptArm:
    """An arm's script part: the notes of its first round, the files its processes wrote."""

    notes: tuple[ScriptNote, ...]
    files: tuple[ScriptFile, ...]

    @classmethod
    def of(cls, value: Any) -> ScriptArm | None:
        if not isinstance(value, Mapping):
            return None
        return cls(
            tuple(
                ScriptNote(_str(n.get("kind")), _text(n.get("text")))
                for n in items(value.get("notes"))
            ),
            tuple(
                ScriptFile(str(f.get("path")), _int(f.get("bytes")))
                for f in items(value.get("files"))
            ),
        )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def curve(value: Any) -> tuple[float | None, ...]:
    """A parity run's losses step by step (None where a step had no finite loss)."""
    return tuple(_float(v) for v in value) if isinstance(value, (list, tuple)) else ()
