"""The sessions folder's index for `tcprof history`: one small JSON file (INDEX_JSON) holding, for
each session folder, its series key, start time, commit, torch, machine and each arm's headline
rows, so that a history of hundreds of sessions never reads a session.json of megabytes twice.

An entry is rebuilt when its session.json's mtime or size changed; folders gone are dropped. A
folder that is not a readable session is remembered as such (so it is not read again until it
changes) and left out of every series. The index is a cache: deleting it costs one full read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcprof.profiler.folders.files import SESSION_JSON, SessionLoadError, read_session
from tcprof.profiler.folders.outputs import atomic_write_text
from tcprof.profiler.model.json_values import items
from tcprof.profiler.model.row import Row

INDEX_JSON = "history-index.json"
INDEX_VERSION = 1
# A row's fields that the history's table, charts and change rule read (compare's among them).
ROW_KEYS = (
    "batch_size",
    "status",
    "speedup",
    "speedup_ci",
    "speedup_se_log",
    "speedup_rounds",
    "interval_covers_processes",
    "verdict",
    "replicates",
    "median_ms",
    "process_medians_ms",
    "compile_s",
    "compile_cold_s",
    "compile_warm_s",
    "steady_peak_mb",
    "peak_cuda_mb",
    "peak_rss_mb",
)


def session_entry(session: dict[str, Any], folder: str) -> dict[str, Any]:
    """One session's line in the index: what a history shows of it, nothing more."""
    git = (session.get("provenance") or {}).get("git") or {}
    arms = []
    for arm in session.get("arms") or []:
        rows = []
        for r in arm.get("results") or []:
            row = {k: r.get(k) for k in ROW_KEYS if k in r}
            accuracy = r.get("accuracy")
            row["accuracy"] = accuracy.get("status") if isinstance(accuracy, dict) else None
            rows.append(row)
        env = arm.get("environment") or {}
        arms.append(
            {
                "name": arm.get("name"),
                "torch": env.get("torch"),
                "device_name": env.get("device_name"),
                "results": rows,
            }
        )
    env = session.get("environment") or {}
    series = session.get("series") or {}
    return {
        "folder": folder,
        "series": series.get("key"),
        "series_text": series.get("text"),
        "series_file": (series.get("parts") or {}).get("file"),
        "started_at": session.get("started_at"),
        "commit": git.get("commit"),
        "short": git.get("short"),
        "dirty": git.get("dirty"),
        "torch": env.get("torch") or next((a["torch"] for a in arms if a["torch"]), None),
        "device_name": env.get("device_name")
        or next((a["device_name"] for a in arms if a["device_name"]), None),
        "schema_version": session.get("schema_version"),
        "baseline": session.get("baseline"),
        "arms": arms,
    }


def _stamp(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _read_index(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != INDEX_VERSION:
        return {}
    folders = data.get("folders")
    return folders if isinstance(folders, dict) else {}


def load_index(sessions: str | Path, write: bool = True) -> list[dict[str, Any]]:
    """Every readable session in `sessions` (each sub-folder holding a session.json) as its
    index entry, oldest first; the index file is brought up to date and rewritten when
    something changed (`write`; an unwritable folder is read all the same)."""
    root = Path(sessions)
    index_path = root / INDEX_JSON
    known = _read_index(index_path)
    fresh: dict[str, Any] = {}
    changed = False
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        children = []
    for child in children:
        stamp = _stamp(child / SESSION_JSON)
        if stamp is None:
            continue
        old = known.get(child.name)
        if isinstance(old, dict) and old.get("stamp") == stamp:
            fresh[child.name] = old
            continue
        changed = True
        try:
            entry: dict[str, Any] | None = session_entry(read_session(child), child.name)
        except (SessionLoadError, KeyError, TypeError, ValueError, AttributeError):
            entry = None  # not a session the readers can use: remembered, never shown
        fresh[child.name] = {"stamp": stamp, "entry": entry}
    changed = changed or set(fresh) != set(known)
    if changed and write:
        try:
            text = json.dumps({"version": INDEX_VERSION, "folders": fresh}, separators=(",", ":"))
            atomic_write_text(index_path, text)
        except OSError:
            pass  # a read-only sessions folder: the history is shown, the index not kept
    entries = [v["entry"] for v in fresh.values() if v.get("entry")]
    return sorted(entries, key=lambda e: (_number(e.get("started_at")), e["folder"]))


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


@dataclass(frozen=True)
class IndexArm:
    """An arm of an index entry: its torch and machine, and its rows read by the model (the index
    keeps each row's headline fields as session.json has them), by batch size."""

    name: str | None
    torch: str | None
    device_name: str | None
    rows: Mapping[int, Row]


@dataclass(frozen=True)
class IndexEntry:
    """One session's index entry read once, so that a history reads attributes, not keys."""

    folder: str | None
    series: str | None
    series_text: str | None
    series_file: str | None
    started_at: Any  # as saved: a history dates only a finite number
    short: str | None
    dirty: bool
    torch: str | None
    device_name: str | None
    baseline: str | None  # the saved baseline, else the first arm
    arms: tuple[IndexArm, ...]

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> IndexEntry:
        saved = items(entry.get("arms"))
        first = saved[0].get("name") if saved else None
        baseline = _text(entry.get("baseline") or first)
        return cls(
            folder=_text(entry.get("folder")),
            series=_text(entry.get("series")),
            series_text=_text(entry.get("series_text")),
            series_file=_text(entry.get("series_file")),
            started_at=entry.get("started_at"),
            short=_text(entry.get("short")),
            dirty=bool(entry.get("dirty")),
            torch=_text(entry.get("torch")),
            device_name=_text(entry.get("device_name")),
            baseline=baseline,
            arms=tuple(_index_arm(a, baseline) for a in saved),
        )

    @classmethod
    def read(cls, entry: IndexEntry | Mapping[str, Any]) -> IndexEntry:
        """The door where an index entry's dict may still enter a reader."""
        return entry if isinstance(entry, IndexEntry) else cls.of(entry)

    def arm(self, name: str) -> IndexArm | None:
        return next((a for a in self.arms if a.name == name), None)

    def rows(self, arm: str) -> Mapping[int, Row]:
        found = self.arm(arm)
        return found.rows if found else {}


def _index_arm(arm: Mapping[str, Any], baseline: str | None) -> IndexArm:
    name = _text(arm.get("name"))
    sized = [r for r in items(arm.get("results")) if isinstance(r.get("batch_size"), int)]
    rows = (Row.of(name or "", r, name == baseline) for r in sized)
    return IndexArm(
        name=name,
        torch=_text(arm.get("torch")),
        device_name=_text(arm.get("device_name")),
        rows={row.batch_size: row for row in rows},
    )


def _text(value: Any) -> str | None:
    return str(value) if value else None
