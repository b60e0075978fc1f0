"""Which store, and how a session in it is named: `--store URI` or TCPROF_STORE (any tracking
URI MLflow accepts), `store:NAME` (a session by its folder's name) and `mlflow:RUN_ID` (a
session by its MLflow run), and where its sessions are cached on this machine. No MLflow here:
the commands read these before deciding whether to import it."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

from tcprof.profiler.folders.home import tcprof_home

STORE_ENV = "TCPROF_STORE"
BY_NAME, BY_RUN = "store:", "mlflow:"
CACHE_DIR = "store-cache"
STORE_HELP = (
    f"the team's store: an MLflow tracking URI (http://host:5000, ...; default: {STORE_ENV}); "
    "each run is logged there as --log-to mlflow logs it, and sessions are read back from it"
)
NAMING_HELP = (
    f"a session in the store is named {BY_NAME}NAME (its folder's name, as tcprof history "
    f"--store lists it; the latest of that name) or {BY_RUN}RUN_ID (its MLflow run)"
)
# MLflow retries an HTTP request for minutes by default; a store that is down costs seconds.
QUICK_HTTP = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": "1", "MLFLOW_HTTP_REQUEST_TIMEOUT": "20"}


class StoreError(ValueError):
    """A store name with no store, a session the store does not hold, a store that cannot be
    read (one line)."""


def store_uri(given: str | None = None) -> str | None:
    """The store named by `given`, else TCPROF_STORE; None: no store (the local folder only)."""
    uri = (given or os.environ.get(STORE_ENV) or "").strip()
    return uri or None


def is_store_name(text: object) -> bool:
    """`store:NAME` or `mlflow:RUN_ID` (not a path on disk that happens to start so)."""
    if not isinstance(text, str) or not text.startswith((BY_NAME, BY_RUN)):
        return False
    return not Path(text).exists()


def split_name(text: str) -> tuple[str, str]:
    """("name" | "run", the rest) of a store name; StoreError when the rest is empty."""
    if text.startswith(BY_NAME):
        kind, rest = "name", text[len(BY_NAME) :]
    elif text.startswith(BY_RUN):
        kind, rest = "run", text[len(BY_RUN) :]
    else:
        kind, rest = "name", ""
    if not rest.strip():
        raise StoreError(f"{text!r}: {NAMING_HELP}")
    return kind, rest.strip()


def needed_store(text: str, given: str | None) -> str:
    """The store a store name is read from; StoreError when none is set."""
    uri = store_uri(given)
    if uri is None:
        raise StoreError(
            f"{text} names a session in the team store: give --store URI or set {STORE_ENV}"
        )
    return uri


def cache_dir(uri: str) -> Path:
    """This machine's copy of a store's sessions: a sessions folder of its own (the history's
    index works on it as on the local one), one per store."""
    slug = re.sub(r"[^\w.-]+", "-", uri.split("://", 1)[-1]).strip("-")[:40] or "store"
    digest = hashlib.sha256(uri.encode()).hexdigest()[:8]
    return tcprof_home() / CACHE_DIR / f"{slug}-{digest}"


@contextlib.contextmanager
def quick_failures() -> Iterator[None]:
    """MLflow's HTTP retries and timeout kept short while the store is used, unless the user
    set them: a store that is down is one line of warning in seconds, not minutes of retries."""
    added = [k for k in QUICK_HTTP if k not in os.environ]
    for key in added:
        os.environ[key] = QUICK_HTTP[key]
    try:
        yield
    finally:
        for key in added:
            os.environ.pop(key, None)
