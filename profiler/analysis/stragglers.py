"""The straggler view of distributed arms: each rank's median step, their spread, the slowest.

In data parallel training every step waits for the slowest rank, so a rank that is slower
than the others (a busier core, a hotter GPU, a rank that recompiled) sets the pace of all.
The headline step time is already the slowest rank's per step; this view says which rank that
was and by how much it lagged, with each rank's compile figures and, where the ranks' compiles
diverged, what differs (rank_compiles.py). From session.json's rows (`ranks`), for the CLI, the
reports and the window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.analysis.rank_compiles import divergence_sentences
from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.ranks import RankFigures
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.event_text import script_sweep

HEADER = (
    "arm",
    "batch (per rank / global)",
    "rank medians",
    "spread",
    "slowest rank",
    "compile per rank",
)


@dataclass(frozen=True)
class Straggler:
    """One distributed arm at one batch size: each rank's median (`medians`, rank by rank),
    their spread in percent (None: the fastest has none), the slowest rank, the ranks' typed
    figures, and how their compiles diverged (`notes`: empty when they agree or the arm is not
    compiled). `size` is the batch column as cells() writes it."""

    arm: str
    batch_size: int
    global_batch_size: int | None
    size: str
    medians: tuple[tuple[int, float], ...]
    spread_pct: float | None
    slowest: RankFigures
    ranks: tuple[RankFigures, ...]
    notes: tuple[str, ...]


def rows(session: SessionModel | Mapping[str, Any]) -> list[Straggler]:
    """One entry per distributed arm x batch size with two or more ranks that have a median:
    what cells() reads; the views read `arm`, `batch_size` and `notes` beside the cells."""
    model = SessionModel.read(session)
    script = model.options.script
    out = []
    for arm in model.arms:
        for row in arm.rows:
            ranks = tuple(r for r in row.ranks if r.median_ms is not None)
            if len(ranks) < 2:
                continue
            slowest = max(ranks, key=_median)
            fastest = min(map(_median, ranks))
            out.append(
                Straggler(
                    arm=arm.name,
                    batch_size=row.batch_size,
                    global_batch_size=row.global_batch_size,
                    size=_size(row, script),
                    medians=tuple((r.rank, _median(r)) for r in ranks),
                    spread_pct=(_median(slowest) / fastest - 1.0) * 100.0 if fastest else None,
                    slowest=slowest,
                    ranks=ranks,
                    notes=tuple(divergence_sentences(ranks)),
                )
            )
    return out


def _median(rank: RankFigures) -> float:
    """A rank's median step (rows() keeps only the ranks that have one)."""
    return rank.median_ms or 0.0


def _size(row: Row, script: ScriptSource | None) -> str:
    """The batch column: per rank / global; a script's phase ('the script', 'seq=256'), whose
    samples per step are its own business."""
    if script is not None:
        sweep = script_sweep(script)
        return f"{sweep}={row.batch_size}" if sweep else "the script"
    return f"{row.batch_size} / {row.global_batch_size}"


def cells(entry: Straggler) -> list[str]:
    slowest, spread = entry.slowest, entry.spread_pct
    return [
        entry.arm,
        entry.size,
        ", ".join(f"{rank}: {units.ms(ms)}" for rank, ms in entry.medians),
        "-" if spread is None else units.percent(spread / 100, digits=1),
        f"rank {slowest.rank} (node {slowest.node or 0}, {slowest.host or '?'})",
        compile_cell(entry.ranks),
    ]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def compile_cell(ranks: Sequence[RankFigures]) -> str:
    """Each rank's compile figures, short: '0: 1 graph, 0 recompiles, 2.1 s; 1: ...'; DDPOptimizer's
    splits said as such (they are not graph breaks). '-' for an arm that does not compile."""
    if all(r.graphs is None for r in ranks):
        return "-"
    parts = []
    for r in ranks:
        text = (
            f"{r.rank}: {_plural(r.graphs or 0, 'graph')}, "
            f"{_plural(r.recompiles or 0, 'recompile')}, {_plural(r.graph_breaks or 0, 'break')}"
        )
        if r.guards is not None:
            text += f", {r.guards} guards"
        if r.ddp_splits:
            text += f", {_plural(r.ddp_splits, 'DDP bucket split')}"
        text += f", {units.seconds(float(r.compile_s or 0.0))}"
        parts.append(text)
    return "; ".join(parts)


def text_lines(session: SessionModel) -> list[str]:
    """The terminal's straggler view (nothing for a run without distributed arms)."""
    found = rows(session)
    if not found:
        return []
    out = ["Ranks (each step waits for the slowest rank; the table's step time is its):"]
    for entry in found:
        arm, size, medians, spread, slowest, compiles = cells(entry)
        size = f"bs {size}" if "/" in size else f"({size})"
        out.append(f"  {arm} {size}: {medians}; spread {spread}; slowest {slowest}")
        if compiles != "-":
            out.append(f"    compile per rank: {compiles}")
        out += [f"    ! {note}" for note in entry.notes]
    return out
