"""The straggler view of distributed arms: each rank's median step, their spread, the slowest.

In data parallel training every step waits for the slowest rank, so a rank that is slower
than the others (a busier core, a hotter GPU, a rank that recompiled) sets the pace of all.
The headline step time is already the slowest rank's per step; this view says which rank that
was and by how much it lagged. From session.json's rows (`ranks`), for the CLI and the reports.
"""

from __future__ import annotations

from typing import Any

HEADER = ("arm", "batch (per rank / global)", "rank medians", "spread", "slowest rank")


def rows(session_dict: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per distributed arm x batch size with per-rank medians."""
    out = []
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
                    "medians": [(r["rank"], r["median_ms"]) for r in ranks],
                    "spread_pct": (slowest["median_ms"] / fastest - 1.0) * 100.0
                    if fastest
                    else None,
                    "slowest": slowest,
                }
            )
    return out


def cells(entry: dict[str, Any]) -> list[str]:
    slowest = entry["slowest"]
    spread = entry["spread_pct"]
    return [
        str(entry["arm"]),
        f"{entry['batch_size']} / {entry['global_batch_size']}",
        ", ".join(f"{rank}: {ms:.3g} ms" for rank, ms in entry["medians"]),
        "-" if spread is None else f"{spread:.1f}%",
        f"rank {slowest['rank']} (node {slowest.get('node', 0)}, {slowest.get('host') or '?'})",
    ]


def text_lines(session_dict: dict[str, Any]) -> list[str]:
    """The terminal's straggler view (nothing for a run without distributed arms)."""
    found = rows(session_dict)
    if not found:
        return []
    out = ["Ranks (each step waits for the slowest rank; the table's step time is its):"]
    for entry in found:
        arm, size, medians, spread, slowest = cells(entry)
        out.append(f"  {arm} bs {size}: {medians}; spread {spread}; slowest {slowest}")
    return out
