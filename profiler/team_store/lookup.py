"""A session named on a command line or to `tcprof.load`, found: a path is itself, a store name
(`store:NAME`, `mlflow:RUN_ID`) its cached folder; and a history's entries, from the local
sessions folder and the store's cache together (each session once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tcprof.profiler.folders.index import load_index
from tcprof.profiler.team_store.address import is_store_name, needed_store


def local_session(
    text: str | Path, store: str | None = None, experiment: str | None = None
) -> str | Path:
    """`text` itself unless it names a session in the store: then its cached folder (fetched
    once). StoreError (one line) for a store name with no store or not in the store."""
    if not is_store_name(text):
        return text
    name = str(text)
    uri = needed_store(name, store)
    from tcprof.profiler.team_store.reading import StoreReader

    return StoreReader(uri, experiment).resolve(name)


def history_entries(local: Path, uri: str | None) -> tuple[list[dict[str, Any]], Path | None]:
    """The index entries of the local sessions and, with a store, of every session in it
    (cached first); a session in both is listed once. Also the store's cache folder."""
    entries = load_index(local)
    if uri is None:
        return entries, None
    from tcprof.profiler.team_store.reading import StoreReader

    reader = StoreReader(uri)
    reader.sync()
    seen = {e["folder"] for e in entries}
    stored = [e for e in load_index(reader.cache) if e["folder"] not in seen]
    merged = sorted([*entries, *stored], key=lambda e: (e.get("started_at") or 0, e["folder"]))
    return merged, reader.cache
