"""A store's runs listed over MLflow's REST API with the standard library: importing MLflow's
client costs 2-6 s, more than the rest of a cached `tcprof history --store`. Only for http(s)
servers; other tracking URIs (sqlite:, a folder, databricks) and a server behind a plugin's
auth (MLFLOW_TRACKING_AUTH) are read through MLflow's client (reading.py).

Auth as MLflow's client sends it: MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD as Basic,
else MLFLOW_TRACKING_TOKEN as Bearer; MLFLOW_TRACKING_INSECURE_TLS and
MLFLOW_TRACKING_SERVER_CERT_PATH as its TLS settings. A store that cannot be answered is one
StoreError line, after MLFLOW_HTTP_REQUEST_TIMEOUT seconds at most (20 unless set)."""

from __future__ import annotations

import base64
import json
import os
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.team_store.address import QUICK_HTTP, StoreError

API = "/api/2.0/mlflow"
PAGE_SIZE = 1000  # MLflow's server answers at most this many runs a page
RETRIED = {429, 500, 502, 503, 504}  # answers worth asking again, as MLflow's client does
TIMEOUT_ENV, RETRIES_ENV = "MLFLOW_HTTP_REQUEST_TIMEOUT", "MLFLOW_HTTP_REQUEST_MAX_RETRIES"


@dataclass(frozen=True)
class RunRecord:
    """What a listing needs of an MLflow run, from the REST answer or the client's entity."""

    run_id: str
    run_name: str
    start_time: int | None  # milliseconds, as MLflow keeps it
    tags: dict[str, str]

    @classmethod
    def from_json(cls, run: dict[str, Any]) -> RunRecord:
        info, data = run.get("info") or {}, run.get("data") or {}
        start = info.get("start_time")
        return cls(
            run_id=str(info.get("run_id") or info.get("run_uuid")),
            run_name=str(info.get("run_name") or ""),
            start_time=int(start) if start else None,
            tags={str(t["key"]): str(t.get("value", "")) for t in data.get("tags") or []},
        )

    @classmethod
    def from_entity(cls, run: Any) -> RunRecord:
        return cls(
            run_id=str(run.info.run_id),
            run_name=str(run.info.run_name or ""),
            start_time=run.info.start_time or None,
            tags=dict(run.data.tags),
        )


def speaks_rest(uri: str) -> bool:
    """Whether this store is read over REST here (else through MLflow's client)."""
    scheme = urllib.parse.urlsplit(uri).scheme
    return scheme in ("http", "https") and not os.environ.get("MLFLOW_TRACKING_AUTH")


def auth_headers() -> dict[str, str]:
    """The Authorization header MLflow's client would send, from its own variables."""
    user = os.environ.get("MLFLOW_TRACKING_USERNAME")
    password = os.environ.get("MLFLOW_TRACKING_PASSWORD")
    token = os.environ.get("MLFLOW_TRACKING_TOKEN")
    if user and password:
        pair = base64.standard_b64encode(f"{user}:{password}".encode()).decode()
        return {"Authorization": f"Basic {pair}"}
    if token:
        return {"Authorization": f"Bearer {token}"}
    return {}


def _tls() -> ssl.SSLContext | None:
    if os.environ.get("MLFLOW_TRACKING_INSECURE_TLS", "").lower() == "true":
        return ssl._create_unverified_context()
    cert = os.environ.get("MLFLOW_TRACKING_SERVER_CERT_PATH")
    return ssl.create_default_context(cafile=cert) if cert else None


def _number(env: str) -> float:
    try:
        return float(os.environ.get(env) or QUICK_HTTP[env])
    except ValueError:
        return float(QUICK_HTTP[env])


class RestStore:
    """One MLflow tracking server, asked over HTTP. `page_size` is a test's seam (paging)."""

    def __init__(self, uri: str, page_size: int = PAGE_SIZE) -> None:
        self.uri = uri  # as the user named it, in every message
        self.base = uri.rstrip("/")
        self.page_size = page_size

    def _ask(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The JSON answer to a GET (no body) or POST; None for 404 (no such thing)."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "User-Agent": "tcprof", **auth_headers()}
        request = urllib.request.Request(f"{self.base}{API}{path}", data=data, headers=headers)
        tries = 1 + max(0, int(_number(RETRIES_ENV)))
        for attempt in range(tries):
            try:
                with urllib.request.urlopen(
                    request, timeout=_number(TIMEOUT_ENV), context=_tls()
                ) as answer:
                    found: dict[str, Any] = json.loads(answer.read() or b"{}")
                    return found
            except urllib.error.HTTPError as exc:
                said = _said(exc)
                if exc.code == 404 and said.error == "RESOURCE_DOES_NOT_EXIST":
                    return None
                if exc.code in RETRIED and attempt + 1 < tries:
                    time.sleep(1.0 + attempt)
                    continue
                raise StoreError(f"cannot read the store {self.uri}: {said.line}") from exc
            except urllib.error.URLError as exc:  # nothing answers: at once, or after the timeout
                why = getattr(exc.reason, "strerror", None) or str(exc.reason)
                raise StoreError(f"cannot reach the MLflow server at {self.uri} ({why})") from exc
            except (OSError, ValueError) as exc:  # a timeout mid-answer, or not MLflow at all
                why = str(exc) or type(exc).__name__
                raise StoreError(f"cannot read the store {self.uri}: {why}") from exc
        raise AssertionError("unreachable")

    def experiment_id(self, name: str) -> str | None:
        """The id of the experiment of that name; None when the store has none."""
        query = urllib.parse.urlencode({"experiment_name": name})
        found = self._ask(f"/experiments/get-by-name?{query}")
        return None if found is None else str(self._field(found, "experiment")["experiment_id"])

    def search(
        self, experiment_id: str, filter_string: str, order_by: list[str], most: int
    ) -> list[RunRecord]:
        """Every run the filter finds (up to `most`), page after page."""
        runs: list[RunRecord] = []
        token: str | None = None
        while len(runs) < most:
            body: dict[str, Any] = {
                "experiment_ids": [experiment_id],
                "filter": filter_string,
                "max_results": min(self.page_size, most - len(runs)),
                "order_by": order_by,
            }
            if token:
                body["page_token"] = token
            page = self._ask("/runs/search", body)
            if not isinstance(page, dict):
                raise StoreError(f"cannot read the store {self.uri}: not an MLflow server's answer")
            runs += [RunRecord.from_json(r) for r in page.get("runs") or []]
            token = page.get("next_page_token")
            if not token:
                break
        return runs

    def run(self, run_id: str) -> RunRecord:
        """One run by its id; StoreError when the store holds none."""
        found = self._ask(f"/runs/get?{urllib.parse.urlencode({'run_id': run_id})}")
        if found is None:
            raise StoreError(f"cannot read the store {self.uri}: no run {run_id}")
        return RunRecord.from_json(self._field(found, "run"))

    def _field(self, answer: Any, key: str) -> dict[str, Any]:
        """`answer[key]`, an object, or StoreError: a server that answers, but not as MLflow."""
        value = answer.get(key) if isinstance(answer, dict) else None
        if not isinstance(value, dict):
            raise StoreError(f"cannot read the store {self.uri}: not an MLflow server's answer")
        return value


@dataclass(frozen=True)
class _Refusal:
    error: str | None  # MLflow's error_code; None: not MLflow's answer
    line: str  # what it said, on one line


def _said(exc: urllib.error.HTTPError) -> _Refusal:
    """The server's own word for a refused request (MLflow answers a JSON error)."""
    try:
        answer = json.loads(exc.read() or b"{}")
    except (OSError, ValueError):
        answer = None
    answer = answer if isinstance(answer, dict) else {}
    text = f"HTTP {exc.code}: {answer.get('message') or exc.reason}"
    return _Refusal(answer.get("error_code"), " ".join(text.split())[:200])
