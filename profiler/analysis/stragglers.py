"""The straggler view of distributed arms: each rank's median step, their spread, the slowest.

In data parallel training every step waits for the slowest rank, so a rank that is slower
than the others (a busier core, a hotter GPU, a rank that recompiled) sets the pace of all.
The headline step time is already the slowest rank's per step; this view says which rank that
was and by how much it lagged, with each rank's compile figures and, where the ranks' compiles
diverged, what differs (rank_compiles.py). From session.json's rows (`ranks`), for the CLI, the
reports and the window.
"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.analysis.rank_compiles import divergence_sentences
from tcprof.profiler.protocol import units

HEADER = (
    "arm",
    "batch (per rank / global)",
    "rank medians",
    "spread",
    "slowest rank",
    "compile per rank",
)


def rows(session_dict: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per distributed arm x batch size with per-rank medians; `notes` says how the
    ranks' compiles diverged (empty when they agree or the arm is not compiled)."""
    out = []
    script = (session_dict.get("config") or {}).get("script")
    for arm in session_dict.get("arms") or []:
        for row in arm.get("results") or []:
            ranks = [r for r in row.get("ranks") or [] if r.get("median_ms") is not None]
            if len(ranks) < 2:
                continue
            slowest = max(ranks, key=lambda r: r["median_ms"])
            fastest = min(r["median_ms"] for r in ranks)
            out.append(
                {
                    "arm": arm.get("name"),
                    "batch_size": row.get("batch_size"),
                    "global_batch_size": row.get("global_batch_size"),
                    "size": _size(row, script),
                    "medians": [(r["rank"], r["median_ms"]) for r in ranks],
                    "spread_pct": (slowest["median_ms"] / fastest - 1.0) * 100.0
                    if fastest
                    else None,
                    "slowest": slowest,
                    "ranks": ranks,
                    "notes": divergence_sentences(ranks),
                }
            )
    return out


def _size(row: dict[str, Any], script: dict[str, Any] | None) -> str:
    """The batch column: per rank / global; a script's phase ('the script', 'seq=256'), whose
    samples per step are its own business."""
    if isinstance(script, dict):
        sweep = script.get("sweep")
        return f"{sweep}={row.get('batch_size')}" if sweep else "the script"
    return f"{row.get('batch_size')} / {row.get('global_batch_size')}"


def cells(entry: dict[str, Any]) -> list[str]:
    slowest = entry["slowest"]
    spread = entry["spread_pct"]
    return [
        str(entry["arm"]),
        entry["size"],
        ", ".join(f"{rank}: {units.ms(ms)}" for rank, ms in entry["medians"]),
        "-" if spread is None else units.percent(spread / 100, digits=1),
        f"rank {slowest['rank']} (node {slowest.get('node', 0)}, {slowest.get('host') or '?'})",
        compile_cell(entry["ranks"]),
    ]


def compile_cell(ranks: list[dict[str, Any]]) -> str:
    """Each rank's compile figures, short: '0: 1 graph, 0 recompiles, 2.1 s; 1: ...'; DDPOptimizer's
    splits said as such (they are not graph breaks). '-' for an arm that does not compile."""
    if not any("graphs" in r for r in ranks):
        return "-"
    parts = []
    for r in ranks:
        text = (
            f"{r['rank']}: {r.get('graphs', 0)} graph{'s' if r.get('graphs') != 1 else ''}, "
            f"{r.get('recompiles', 0)} recompile{'s' if r.get('recompiles') != 1 else ''}, "
            f"{r.get('graph_breaks', 0)} break{'s' if r.get('graph_breaks') != 1 else ''}"
        )
        if r.get("guards") is not None:
            text += f", {r['guards']} guards"
        if r.get("ddp_splits"):
            text += f", {r['ddp_splits']} DDP bucket split{'s' if r['ddp_splits'] != 1 else ''}"
        text += f", {units.seconds(float(r.get('compile_s') or 0.0))}"
        parts.append(text)
    return "; ".join(parts)


def text_lines(session_dict: dict[str, Any]) -> list[str]:
    """The terminal's straggler view (nothing for a run without distributed arms)."""
    found = rows(session_dict)
    if not found:
        return []
    out = ["Ranks (each step waits for the slowest rank; the table's step time is its):"]
    for entry in found:
        arm, size, medians, spread, slowest, compiles = cells(entry)
        size = f"bs {size}" if "/" in size else f"({size})"
        out.append(f"  {arm} {size}: {medians}; spread {spread}; slowest {slowest}")
        if compiles != "-":
            out.append(f"    compile per rank: {compiles}")
        out += [f"    ! {note}" for note in entry["notes"]]
    return out
