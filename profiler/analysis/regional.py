"""Regional against whole-model compilation: compile seconds saved against step time lost.

Compiling only the repeated block compiles faster (TorchDynamo traces one block, not all of
them), but a block boundary stops fusion across blocks, so a step may get slower. Whether it
pays depends on how long the job runs: after `break_even_steps` steps, the whole-model arm's
faster steps have repaid its longer compile. The pairs are arms that differ only in
`regional=true` (same backend, mode, dynamic and fullgraph).
"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.config import ArmSpec, arms_of
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.regional import Tradeoff
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units


def _twin_key(spec: ArmSpec) -> tuple[Any, ...]:
    return (spec.backend, spec.mode, spec.dynamic, spec.fullgraph)


def _pairs(session: SessionModel) -> list[tuple[Arm, Arm]]:
    """(regional arm, whole-model arm) of the session that differ only in regional."""
    specs = arms_of(thaw(session.config))
    by_index = {a.index: a for a in session.arms}
    whole = {
        _twin_key(s): by_index.get(i) for i, s in enumerate(specs) if s.compiled and not s.regional
    }
    return [
        (regional, twin)
        for i, s in enumerate(specs)
        if s.regional and (regional := by_index.get(i)) and (twin := whole.get(_twin_key(s)))
    ]


def _compile_s(row: Row) -> float | None:
    """The cold compile when the run measured one (what a first run pays), else the first's."""
    cost = row.compile
    if cost is None:
        return None
    return cost.cold_s if cost.cold_s is not None else cost.first_s


def tradeoff(regional_row: Row, whole_row: Row) -> dict[str, Any]:
    """One batch size: seconds of compile saved, milliseconds per step lost, and the verdict,
    as session.json saves it (`regional`, written by session/document.py)."""
    r_compile, w_compile = _compile_s(regional_row), _compile_s(whole_row)
    r_ms, w_ms = regional_row.median_ms, whole_row.median_ms
    saved = lost = steps = None
    verdict = "unknown"
    if r_compile is not None and w_compile is not None and r_ms is not None and w_ms is not None:
        saved, lost = w_compile - r_compile, r_ms - w_ms
        if saved >= 0 and lost <= 0:
            verdict = "regional wins"  # compiles faster and steps no slower
        elif saved <= 0 and lost >= 0:
            verdict = "whole wins"
        elif saved > 0:  # regional compiles faster, steps slower: whole repays after N steps
            steps = int(saved * 1000.0 / lost) + 1
            verdict = "regional for shorter runs"
        else:  # regional compiles slower but steps faster (rare): regional repays after N steps
            steps = int(-saved * 1000.0 / -lost) + 1
            verdict = "regional for longer runs"
    return {
        "batch_size": regional_row.batch_size,
        "compile_saved_s": None if saved is None else round(saved, 3),
        "step_ms_lost": None if lost is None else round(lost, 4),
        "break_even_steps": steps,
        "verdict": verdict,
    }


def regional_tradeoffs(session: SessionModel) -> list[dict[str, Any]]:
    """Per regional arm with a whole-model twin, per batch size both measured (the session's
    writer reads the document it is building through the model)."""
    out = []
    for regional, whole in _pairs(session):
        whole_rows = {r.batch_size: r for r in whole.rows}
        for row in regional.rows:
            twin = whole_rows.get(row.batch_size)
            if twin is not None:
                out.append({"regional": regional.name, "whole": whole.name, **tradeoff(row, twin)})
    return out


def rows(session: SessionModel) -> tuple[Tradeoff, ...]:
    """The tradeoffs the session saved (none: no regional arm beside its twin)."""
    return session.regional


def cells(row: Tradeoff) -> list[str]:
    """regional, whole, bs, compile s saved, ms/step lost, break-even steps, verdict."""
    return [
        str(row.regional),
        str(row.whole),
        str(row.batch_size),
        units.seconds(row.compile_saved_s, unit=False, plus=True),
        units.ms(row.step_ms_lost, unit=False, plus=True),
        units.count(row.break_even_steps),
        str(row.verdict),
    ]


HEADER = [
    "regional",
    "whole model",
    "bs",
    "compile s saved",
    "ms/step lost",
    "break-even steps",
    "verdict",
]


def text_lines(session: SessionModel) -> list[str]:
    """For the terminal after `tcprof run`."""
    found = rows(session)
    if not found:
        return []
    out = ["Regional vs whole-model compile:"]
    for r in found:
        c = cells(r)
        out.append(
            f"  {c[0]} vs {c[1]} bs {c[2]}: {c[3]} s compile, {c[4]} ms/step, "
            f"break-even {c[5]} steps: {c[6]}"
        )
    return out
