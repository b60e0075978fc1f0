"""Reading a run while it goes: the events written so far, the ranks it started, and which of
a run's processes are still alive (for the Stop, crash and stall tests)."""

from __future__ import annotations

import json
from pathlib import Path

import psutil


def events_so_far(path: Path) -> list[dict]:
    """The events of an events.jsonl written so far (the run may be writing its last line)."""
    found = []
    for line in path.read_text().splitlines() if path.exists() else []:
        try:
            found.append(json.loads(line))
        except ValueError:
            continue
    return found


def rank_pids(out: Path) -> list[int]:
    """Every rank process the run in `out` started (from their own hello)."""
    return [
        e["event"]["pid"]
        for e in events_so_far(out / "events.jsonl")
        if e.get("type") == "rank_event" and e["event"].get("type") == "hello"
    ]


def alive(pids: list[int]) -> list[int]:
    """Those of `pids` still running (a zombie has ended)."""
    running = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                running.append(pid)
        except psutil.NoSuchProcess:
            pass
    return running
