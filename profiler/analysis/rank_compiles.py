"""Compile insight per rank of a distributed arm, and ranks whose compiles diverged.

Every rank compiles its own copy of the model. They should agree: the same graphs, the same
guards, no recompile on one rank only. A rank that recompiles while the others do not is the
classic cause of a hang or a slowdown in distributed compile (the others wait in a collective
while it compiles, or its graph issues different collectives), so it is called out in words,
as tlparse flags diverging ranks of a multi-rank run. DDPOptimizer's splits of a graph at
gradient bucket boundaries are counted apart: they are expected, not user graph breaks.

Over the ranks' typed figures (`Row.ranks`, which session/rank_figures.py builds from each
rank's own events), for the straggler view. No Qt, no torch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tcprof.profiler.model.ranks import RankFigures

# The compile figures compared between ranks: each named, and read off a rank's figures.
COMPARED: tuple[tuple[str, Callable[[RankFigures], int | None]], ...] = (
    ("graphs", lambda r: r.graphs),
    ("recompiles", lambda r: r.recompiles),
    ("graph_breaks", lambda r: r.graph_breaks),
    ("guards", lambda r: r.guards),
    ("ddp_splits", lambda r: r.ddp_splits),
)


def diverged(ranks: Sequence[RankFigures]) -> list[str]:
    """Which compile figures differ between ranks (COMPARED names), in that order."""
    out = []
    for key, figure in COMPARED:
        values = {figure(r) for r in ranks if figure(r) is not None}
        if len(values) > 1:
            out.append(key)
    return out


def divergence_sentences(ranks: Sequence[RankFigures]) -> list[str]:
    """What the user should read about ranks whose compiles differ (nothing when they agree)."""
    if len(ranks) < 2 or all(r.graphs is None for r in ranks):
        return []
    out = []
    recompiled = [r for r in ranks if (r.recompiles or 0) > 0]
    if recompiled and len(recompiled) < len(ranks):
        names = ", ".join(f"rank {r.rank}" for r in recompiled)
        reasons = "; ".join(reason for r in recompiled for reason in r.recompile_reasons[:1])
        because = f" ({reasons})" if reasons else ""
        out.append(
            f"{names} recompiled{because} while the others did not: the classic cause of a hang "
            "or slowdown in distributed compile"
        )
    split = diverged(ranks)
    others = [(k, f) for k, f in COMPARED if k in split and (k != "recompiles" or not out)]
    if others:
        detail = "; ".join(
            f"{key}: " + ", ".join(f"rank {r.rank} {_value(figure(r))}" for r in ranks)
            for key, figure in others
        )
        out.append(f"the ranks' compiles diverged ({detail})")
    return out


def _value(value: Any) -> str:
    return "-" if value is None else str(value)
