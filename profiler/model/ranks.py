"""A distributed arm's ranks at one batch size (`arms[].results[].ranks`), typed and
read-only: each rank's median step, where it ran, and (a compiled arm) its own compile figures
(analysis/rank_compiles.py's `compile_figures`, from the rank's own events)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_float as _float
from tcprof.profiler.model.json_values import as_int as _int
from tcprof.profiler.model.json_values import as_str as _str


@dataclass(frozen=True)
class RankFigures:
    """One rank: its node and host, median and p90 step (ms), steps, steady peak, first-step
    compile; a compiled arm's compile figures (`graphs` None: the arm does not compile): graphs,
    recompiles and their first reasons, graph breaks, guards, DDPOptimizer's subgraphs and the
    splits they make, its compile seconds, whether it fell back."""

    rank: int
    node: int | None
    host: str | None
    median_ms: float | None
    p90_ms: float | None
    steps: int | None
    steady_peak_mb: float | None
    compile_cold_s: float | None
    compile_s: float | None
    graphs: int | None
    recompiles: int | None
    recompile_reasons: tuple[str, ...]
    graph_breaks: int | None
    fell_back: bool | None
    guards: int | None
    ddp_subgraphs: int | None
    ddp_splits: int | None

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> RankFigures:
        fell_back = value.get("fell_back")
        return cls(
            _int(value.get("rank")) or 0,
            _int(value.get("node")),
            _str(value.get("host")),
            _float(value.get("median_ms")),
            _float(value.get("p90_ms")),
            _int(value.get("steps")),
            _float(value.get("steady_peak_mb")),
            _float(value.get("compile_cold_s")),
            _float(value.get("compile_s")),
            _int(value.get("graphs")),
            _int(value.get("recompiles")),
            tuple(str(r) for r in value.get("recompile_reasons") or ()),
            _int(value.get("graph_breaks")),
            fell_back if isinstance(fell_back, bool) else None,
            _int(value.get("guards")),
            _int(value.get("ddp_subgraphs")),
            _int(value.get("ddp_splits")),
        )
