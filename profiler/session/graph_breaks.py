"""An arm's graph breaks as session.json lists them: each distinct break once, over every
batch size."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tcprof.profiler.session.records import ArmRecord


def dedupe_graph_breaks(arm: ArmRecord) -> list[dict[str, Any]]:
    """Each distinct break (reason, file, line) once, with its count and batch sizes."""
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for bs, res in arm.results.items():
        for gb in res.graph_break_events:
            key = (gb.get("reason"), gb.get("file"), gb.get("line"))
            entry = merged.setdefault(
                key,
                {
                    "reason": gb.get("reason"),
                    "explanation": gb.get("explanation"),
                    "hints": gb.get("hints") or [],
                    "file": gb.get("file"),
                    "line": gb.get("line"),
                    "count": 0,
                    "batch_sizes": [],
                },
            )
            entry["count"] += 1
            if bs not in entry["batch_sizes"]:
                entry["batch_sizes"].append(bs)
    return list(merged.values())
