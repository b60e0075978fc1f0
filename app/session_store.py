"""Saved sessions on disk, for the window: list them, load one, and turn it back into events.

Qt-free on purpose (cheap to test, usable off the GUI thread). A session folder holds
session.json (the engine's format) and events.jsonl (every event as it arrived). Re-opening a
session restores the plots by feeding LiveData the same events the live run fed it: the
recorded events.jsonl when it is there, else events synthesised from session.json's samples
(steps, memory, compile markers, log lines), so the plots need no second loading path.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from profiler.events import decode
from profiler.paths import sessions_dir

SESSION = "session.json"
EVENTS = "events.jsonl"
PLOT_EVENT_TYPES = ("steps", "memory", "compile", "log", "error", "graph_break", "fallback")
HEAD_BYTES = 65536  # session.json puts status and times first: the head is enough to list it
_HEAD_FIELDS = re.compile(r'"(status|started_at)":\s*("(?:[^"\\]|\\.)*"|[-\d.eE+]+|null)')


class SessionLoadError(Exception):
    """The file is not a session tcprof can open (the message says why)."""


@dataclass(frozen=True)
class SavedSession:
    """One row of the Sessions list."""

    folder: Path
    started_at: float | None
    model: str
    arms: tuple[str, ...]
    status: str

    @property
    def path(self) -> Path:
        return self.folder / SESSION


@dataclass
class LoadedSession:
    session: dict[str, Any]  # the session.json dict, samples included
    events: list[dict[str, Any]]  # what the plots and logs are fed
    folder: Path | None  # where it lives (exports default there)
    source: Path  # the file the user opened


def _first_event(path: Path) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as f:
            line = f.readline()
        return decode(line) if line.strip() else None
    except (OSError, ValueError):
        return None


def _summary_of(folder: Path) -> SavedSession | None:
    """Model, arms, date and status without parsing a possibly huge session.json in full."""
    fields: dict[str, Any] = {}
    try:
        with open(folder / SESSION, encoding="utf-8", errors="replace") as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return None
    for key, raw in _HEAD_FIELDS.findall(head):
        if key not in fields:
            try:
                fields[key] = json.loads(raw)
            except ValueError:
                pass
    config: dict[str, Any] = {}
    start = _first_event(folder / EVENTS)
    if start and start.get("type") == "run_start":
        config = start.get("config") or {}
    elif (folder / SESSION).stat().st_size <= HEAD_BYTES:
        try:
            config = json.loads(head).get("config") or {}
        except ValueError:
            return None
    source = config.get("source") or {}
    path = Path(str(source.get("path") or "?"))
    model = source.get("factory") or source.get("model") or ""
    arms = []
    for a in config.get("arms") or []:
        arms.append(str(a.get("label") or a.get("backend") or "?"))
    started = fields.get("started_at")
    return SavedSession(
        folder=folder,
        started_at=float(started) if isinstance(started, (int, float)) else None,
        model=f"{model} ({path.name})" if model else path.name,
        arms=tuple(arms),
        status=str(fields.get("status") or "?"),
    )


def list_sessions(root: str | Path | None = None) -> list[SavedSession]:
    """Saved sessions under root (default: sessions_dir()), newest first."""
    base = Path(root) if root is not None else sessions_dir()
    if not base.is_dir():
        return []
    found = []
    for folder in base.iterdir():
        if (folder / SESSION).is_file():
            item = _summary_of(folder)
            if item is not None:
                found.append(item)
    return sorted(found, key=lambda s: (s.started_at or 0.0, s.folder.name), reverse=True)


def read_events(path: Path) -> list[dict[str, Any]]:
    """Every event of an events.jsonl; a torn last line (a crash) ends the list."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                out.append(decode(line))
            except ValueError:
                break
    return out


def load_session(path: str | Path) -> LoadedSession:
    """Open a session folder, a session.json or an events.jsonl."""
    path = Path(path)
    if path.is_dir():
        path = path / SESSION if (path / SESSION).is_file() else path / EVENTS
    if not path.is_file():
        raise SessionLoadError(f"{path} does not exist")
    folder = path.parent
    try:
        if path.name.endswith(".jsonl"):
            from profiler.session import Session  # numpy-backed: not at start-up

            session = Session.from_events(path).to_dict()
            events = read_events(path)
        else:
            with open(path, encoding="utf-8") as f:
                session = json.load(f)
            beside = folder / EVENTS
            events = read_events(beside) if beside.is_file() else []
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise SessionLoadError(f"cannot read {path.name}: {exc}") from exc
    if not isinstance(session, dict) or "arms" not in session or "config" not in session:
        raise SessionLoadError(f"{path.name} is not a tcprof session (no arms or config)")
    if not any(e.get("type") == "steps" for e in events):
        events = synthesise_events(session)
    return LoadedSession(session, events, folder, path)


def synthesise_events(session: dict[str, Any]) -> list[dict[str, Any]]:
    """The plot- and log-relevant events of a run, rebuilt from session.json alone."""
    arms = session.get("arms") or []
    index = {a.get("name"): a.get("index", i) for i, a in enumerate(arms)}
    events: list[dict[str, Any]] = []
    for s in session.get("samples") or []:
        arm, bs = index.get(s.get("arm")), s.get("batch_size")
        if arm is None:
            continue
        warm = list(s.get("warmup_ms") or [])
        if warm:
            events.append(
                {
                    "type": "steps",
                    "arm": arm,
                    "batch_size": bs,
                    "phase": "warmup",
                    "start": 1,
                    "ms": warm,
                }
            )
        if s.get("ms"):
            events.append(
                {
                    "type": "steps",
                    "arm": arm,
                    "batch_size": bs,
                    "phase": "measure",
                    "start": 1 + len(warm),
                    "ms": list(s["ms"]),
                }
            )
        for m in s.get("memory") or []:
            m = (list(m) + [None] * 4)[:4]
            events.append(
                {
                    "type": "memory",
                    "arm": arm,
                    "batch_size": bs,
                    "step": m[0],
                    "rss_mb": m[1],
                    "cuda_alloc_mb": m[2],
                    "cuda_reserved_mb": m[3],
                }
            )
    for i, a in enumerate(arms):
        arm = a.get("index", i)
        recompiles = a.get("recompiles") or []
        for r in a.get("results") or []:
            bs, status = r.get("batch_size"), r.get("compile_status")
            explained = any(rc.get("batch_size") == bs for rc in recompiles)
            if status == "compiled" or (status == "recompiled" and not explained):
                events.append(
                    {
                        "type": "compile",
                        "arm": arm,
                        "batch_size": bs,
                        "step": 0,
                        "kind": "first" if status == "compiled" else "recompile",
                        "seconds": r.get("compile_s"),
                    }
                )
        for rc in recompiles:
            events.append({**rc, "type": "compile", "arm": arm, "kind": "recompile"})
    for line in session.get("logs") or []:
        events.append({"type": "log", **line})
    for err in session.get("errors") or []:
        events.append({"type": "error", **err})
    return events
