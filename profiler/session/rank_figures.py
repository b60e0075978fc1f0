"""One rank's compile figures in session.json's `ranks` entries, from the rank's own
`compile`, `graph_break` and `fallback` events (first round): the session pipeline's reading
of the wire events, beside rows.py that writes them; analysis/rank_compiles.py compares the
ranks' typed figures (`Row.ranks`) once the session is saved.
"""

from __future__ import annotations

from tcprof.profiler.protocol.types import Json


def compile_figures(events: list[Json]) -> Json:
    """One rank's compile figures from its insight events (in the order they came)."""
    compiles = [e for e in events if e.get("type") == "compile"]
    guards = [c["guards"] for c in compiles if isinstance(c.get("guards"), int)]
    subgraphs = [c["ddp_subgraphs"] for c in compiles if isinstance(c.get("ddp_subgraphs"), int)]
    return {
        "compile_s": sum(float(c.get("seconds") or 0.0) for c in compiles),
        "graphs": sum(1 for c in compiles if c.get("kind") == "first"),
        "recompiles": sum(1 for c in compiles if c.get("kind") == "recompile"),
        "recompile_reasons": [
            str(c.get("reason")) for c in compiles if c.get("kind") == "recompile"
        ][:5],
        "graph_breaks": sum(1 for e in events if e.get("type") == "graph_break"),
        "fell_back": any(e.get("type") == "fallback" for e in events),
        "guards": sum(guards) if guards else None,
        "ddp_subgraphs": sum(subgraphs) if subgraphs else 0,
        "ddp_splits": sum(n - 1 for n in subgraphs if n > 1),
    }
