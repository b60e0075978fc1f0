"""MLflow's REST API spoken with the standard library (team_store/rest.py), against a stand-in
server on 127.0.0.1: the auth MLflow's client would send, a store that never answers or is not
MLflow costs one line, and which URIs are read through MLflow's client instead."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tcprof.profiler.team_store.address import StoreError
from tcprof.profiler.team_store.reading import StoreReader
from tcprof.profiler.team_store.rest import RestStore, speaks_rest
from tests.profiler.team_store.conftest import tcprof as cli

pytestmark = pytest.mark.timeout(60)

AUTH_ENV = ("MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD", "MLFLOW_TRACKING_TOKEN")


class StandIn(BaseHTTPRequestHandler):
    """Answers every request with the class's `status` and `answer`; keeps each request's
    Authorization header."""

    status = 404
    answer: dict = {"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "no experiment"}
    seen: list[str | None] = []

    def do_GET(self) -> None:
        type(self).seen.append(self.headers.get("Authorization"))
        body = json.dumps(self.answer).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stand_in(monkeypatch) -> Iterator[type[StandIn]]:
    for key in AUTH_ENV:
        monkeypatch.delenv(key, raising=False)
    handler = type("Handler", (StandIn,), {"seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    handler.uri = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    try:
        yield handler
    finally:
        server.shutdown()
        server.server_close()


def test_auth_is_sent_as_mlflows_client_sends_it(stand_in, monkeypatch):
    uri = stand_in.uri
    assert StoreReader(uri).runs() == []  # no experiment of that name: no sessions
    monkeypatch.setenv("MLFLOW_TRACKING_TOKEN", "t0k")
    StoreReader(uri).runs()
    monkeypatch.setenv("MLFLOW_TRACKING_USERNAME", "ann")
    monkeypatch.setenv("MLFLOW_TRACKING_PASSWORD", "pw")  # both: Basic wins, as in MLflow
    StoreReader(uri).runs()
    assert stand_in.seen == [None, "Bearer t0k", "Basic YW5uOnB3"]


def test_a_server_that_is_not_mlflow_is_one_line(stand_in, monkeypatch):
    monkeypatch.setattr(stand_in, "answer", {"detail": "Not Found"})
    with pytest.raises(StoreError) as caught:
        StoreReader(stand_in.uri).runs()
    assert str(caught.value) == f"cannot read the store {stand_in.uri}: HTTP 404: Not Found"
    monkeypatch.setattr(stand_in, "status", 200)  # answers, but not MLflow's JSON
    with pytest.raises(StoreError, match="not an MLflow server's answer"):
        StoreReader(stand_in.uri).runs()
    monkeypatch.setattr(stand_in, "status", 503)
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "2")
    with pytest.raises(StoreError, match="HTTP 503"):
        StoreReader(stand_in.uri).runs()
    assert len(stand_in.seen) == 2 + 3, "a 503 is asked again, as often as MLflow would"


def test_a_store_that_never_answers_costs_its_timeout_and_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TCPROF_HOME", str(tmp_path))
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "1")
    with socket.socket() as silent:  # connects (the kernel's backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        uri = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        code, out, err = cli("history", "--store", uri)
        took = time.monotonic() - started
    assert code == 0 and "no sessions in" in out
    assert err.strip() == f"tcprof: warning: cannot read the store {uri}: timed out"
    assert took < 10


def test_only_http_stores_are_read_over_rest(monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_AUTH", raising=False)
    assert speaks_rest("http://mlflow:5000") and speaks_rest("https://mlflow.example.com/")
    for other in ("sqlite:///tmp/mlflow.db", "databricks", "file:///tmp/runs", "/tmp/runs"):
        assert not speaks_rest(other), other
        assert StoreReader(other).rest is None
    monkeypatch.setenv("MLFLOW_TRACKING_AUTH", "my_plugin")  # an auth plugin: MLflow's own
    assert not speaks_rest("http://mlflow:5000")
    assert RestStore("http://mlflow:5000/").base == "http://mlflow:5000"
