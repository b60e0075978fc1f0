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
from tcprof.profiler.protocol import units


def _twin_key(spec: ArmSpec) -> tuple[Any, ...]:
    return (spec.backend, spec.mode, spec.dynamic, spec.fullgraph)


def _pairs(session: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(regional arm, whole-model arm) dicts of the session that differ only in regional."""
    specs = arms_of(session.get("config") or {})
    arms = [a for a in session.get("arms") or [] if isinstance(a, dict)]
    by_index = {a.get("index"): a for a in arms}
    whole = {
        _twin_key(s): by_index.get(i) for i, s in enumerate(specs) if s.compiled and not s.regional
    }
    return [
        (regional, twin)
        for i, s in enumerate(specs)
        if s.regional and (regional := by_index.get(i)) and (twin := whole.get(_twin_key(s)))
    ]


def _compile_s(row: dict[str, Any]) -> float | None:
    """The cold compile when the run measured one (what a first run pays), else the first's."""
    value = row.get("compile_cold_s")
    return value if isinstance(value, (int, float)) else row.get("compile_s")


def tradeoff(regional_row: dict[str, Any], whole_row: dict[str, Any]) -> dict[str, Any]:
    """One batch size: seconds of compile saved, milliseconds per step lost, and the verdict."""
    r_compile, w_compile = _compile_s(regional_row), _compile_s(whole_row)
    r_ms, w_ms = regional_row.get("median_ms"), whole_row.get("median_ms")
    out: dict[str, Any] = {
        "batch_size": regional_row.get("batch_size"),
        "compile_saved_s": None,
        "step_ms_lost": None,
        "break_even_steps": None,
        "verdict": "unknown",
    }
    if not (
        isinstance(r_compile, (int, float))
        and isinstance(w_compile, (int, float))
        and isinstance(r_ms, (int, float))
        and isinstance(w_ms, (int, float))
    ):
        return out
    saved, lost = w_compile - r_compile, r_ms - w_ms
    out["compile_saved_s"], out["step_ms_lost"] = round(saved, 3), round(lost, 4)
    if saved >= 0 and lost <= 0:
        out["verdict"] = "regional wins"  # compiles faster and steps no slower
    elif saved <= 0 and lost >= 0:
        out["verdict"] = "whole wins"
    elif saved > 0:  # regional compiles faster, steps slower: whole repays after N steps
        out["break_even_steps"] = int(saved * 1000.0 / lost) + 1
        out["verdict"] = "regional for shorter runs"
    else:  # regional compiles slower but steps faster (rare): regional repays after N steps
        out["break_even_steps"] = int(-saved * 1000.0 / -lost) + 1
        out["verdict"] = "regional for longer runs"
    return out


def regional_tradeoffs(session: dict[str, Any]) -> list[dict[str, Any]]:
    """Per regional arm with a whole-model twin, per batch size both measured."""
    out = []
    for regional, whole in _pairs(session):
        whole_rows = {r.get("batch_size"): r for r in whole.get("results") or []}
        for row in regional.get("results") or []:
            twin = whole_rows.get(row.get("batch_size"))
            if twin is not None:
                out.append(
                    {
                        "regional": regional.get("name"),
                        "whole": whole.get("name"),
                        **tradeoff(row, twin),
                    }
                )
    return out


def rows(session_dict: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in session_dict.get("regional") or [] if isinstance(r, dict)]


def cells(row: dict[str, Any]) -> list[str]:
    """regional, whole, bs, compile s saved, ms/step lost, break-even steps, verdict."""
    return [
        str(row.get("regional")),
        str(row.get("whole")),
        str(row.get("batch_size")),
        units.seconds(row.get("compile_saved_s"), unit=False, plus=True),
        units.ms(row.get("step_ms_lost"), unit=False, plus=True),
        units.count(row.get("break_even_steps")),
        str(row.get("verdict")),
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


def text_lines(session_dict: dict[str, Any]) -> list[str]:
    """For the terminal after `tcprof run`."""
    found = rows(session_dict)
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
