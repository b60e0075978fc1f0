"""A real `mlflow server` on 127.0.0.1 for the tests: a SQLite store and a local artifact root
under a temporary folder, on a free port; stopped with its whole process group. Started once for
a whole test pass (`mlflow_server`, a session fixture every test file sees: it costs 10-30 s)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

START_TIMEOUT_S = 120.0  # 10-20 s on a quiet machine; the suite shares two cores


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class MlflowServer:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.uri = f"http://127.0.0.1:{self.port}"
        self.log = root / "server.log"
        self.ready = False
        command = [
            sys.executable,
            "-m",
            "mlflow",
            "server",
            "--backend-store-uri",
            f"sqlite:///{root / 'mlflow.db'}",
            "--artifacts-destination",
            str(root / "artifacts"),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--workers",
            "1",
        ]
        # MLflow's job runner (a third interpreter importing MLflow, then polling the store for
        # the whole pass) runs server-side jobs that no test asks for; the server itself is
        # unchanged (docs/benchmarks.md, "Suite time, 2026-12-06 third sitting").
        env = {**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env
            )

    def wait_ready(self) -> None:
        """Wait for its health check (once): start it early, wait when it is first needed."""
        if self.ready:
            return
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mlflow server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.uri}/health", timeout=2) as answer:
                    if answer.status == 200:
                        self.ready = True
                        return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"mlflow server not ready in {START_TIMEOUT_S:g} s")

    def stop(self) -> None:
        """SIGTERM to its process group, then SIGKILL to whatever of it is left (uvicorn and
        MLflow's job runner are children of the `mlflow server` process)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=5)  # a test's SQLite store needs no clean shutdown
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=20)


def _health(uri: str) -> bool:
    try:
        with urllib.request.urlopen(f"{uri}/health", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SharedServer:
    """One `mlflow server` for the whole `make test` pass: the first test process that asks
    starts it, the others (xdist's) find it through a state file in the pass's common temporary
    folder and count themselves in; the last one out stops it. Its store is shared: each test
    logs into an experiment of its own (`experiment()`), so tests never see each other's runs."""

    def __init__(self, shared: Path) -> None:
        from filelock import FileLock

        self.shared = shared
        self.state_file = shared / "state.json"
        self.lock = FileLock(str(shared / "lock"))
        self.started: MlflowServer | None = None
        with self.lock:
            state = self._state()
            if state is None or not _alive(state["pid"]):
                root = Path(tempfile.mkdtemp(prefix="server-", dir=shared))
                self.started = MlflowServer(root)
                state = {"pid": self.started.process.pid, "uri": self.started.uri, "users": 0}
            state["users"] += 1
            self.state_file.write_text(json.dumps(state))
        self.uri: str = state["uri"]
        self.pid: int = state["pid"]
        self.ready = False

    def _state(self) -> dict | None:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return None

    def wait_ready(self) -> None:
        """Wait for its health check (once): it boots while the first test's set-up runs."""
        if self.ready:
            return
        if self.started is not None:
            self.started.wait_ready()
        else:
            deadline = time.monotonic() + START_TIMEOUT_S
            while not _health(self.uri):
                if time.monotonic() > deadline or not _alive(self.pid):
                    raise RuntimeError(f"the shared mlflow server at {self.uri} never answered")
                time.sleep(0.5)
        self.ready = True

    def release(self) -> None:
        with self.lock:
            state = self._state() or {"users": 1, "pid": self.pid}
            state["users"] -= 1
            if state["users"] > 0:
                self.state_file.write_text(json.dumps(state))
                return
            self.state_file.unlink(missing_ok=True)
            if self.started is not None:
                self.started.stop()
                return
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.pid, sig)
                except ProcessLookupError:
                    return
                deadline = time.monotonic() + 5
                while _alive(self.pid) and time.monotonic() < deadline:
                    time.sleep(0.1)


def experiment() -> str:
    """An experiment name of a test's own, in the shared server."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory) -> Iterator[SharedServer]:
    """The pass's shared `mlflow server` (started, maybe not yet ready: call `wait_ready`)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each process's basetemp sits in the pass's own
        root = root.parent
    shared = root / "shared-mlflow-server"
    shared.mkdir(exist_ok=True)
    server = SharedServer(shared)
    try:
        yield server
    finally:
        server.release()
