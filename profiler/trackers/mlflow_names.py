"""What a reader of MLflow runs needs before deciding whether to import MLflow (2-6 s): the tags
that find a session's run, the experiment's name, and a probe of the server's address. No MLflow
here; `mlflow_log.py` (the logger) and the team store's reader (`team_store/reading.py`, which
lists a store's sessions over MLflow's REST API) both take them from this one place."""

from __future__ import annotations

import os
import socket
import urllib.parse
import urllib.request

DEFAULT_EXPERIMENT = "tcprof"
EXPERIMENT_ENV = "MLFLOW_EXPERIMENT_NAME"
PARENT_TAG = "mlflow.parentRunId"
PROBE_TIMEOUT_S = 5.0

# Tags that find a session's run again (the team store, profiler/team_store/, searches them).
SESSION_TAG = "tcprof.session"
SERIES_TAG = "tcprof.series"
VERSION_TAG = "tcprof.version"
BRANCH_TAG = "tcprof.branch"
COMMIT_TAG = "tcprof.commit"


def experiment_name(given: str | None) -> str:
    return given or os.environ.get(EXPERIMENT_ENV) or DEFAULT_EXPERIMENT


def probe(uri: str) -> None:
    """A tracking server that nothing answers on fails at once, not after MLflow's minutes of
    retries (MLFLOW_HTTP_REQUEST_MAX_RETRIES): ConnectionError. Left to MLflow behind a proxy."""
    parts = urllib.parse.urlsplit(uri)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return
    if parts.scheme in urllib.request.getproxies() and not urllib.request.proxy_bypass(
        parts.hostname
    ):
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=PROBE_TIMEOUT_S).close()
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
        raise ConnectionError(f"cannot reach the MLflow server at {uri} ({why})") from exc
