"""Node 0 of a run on several nodes: the other nodes connect here and are told what to launch.

Every node runs the same `tcprof run` but for `--node-rank`. Node 0 runs the schedule (rounds,
arms, blocks) and writes the session; the others follow it (node_follower.py): they connect
to node 0's `--rdzv-endpoint` port, are checked to run the same command (node_launch.fingerprint)
and told, for each distributed arm and round, the torchrun to start (node_launch.NodeLaunch),
when to end it, and when the run is over. Their ranks then connect back to node 0 as node 0's own
do, so every rank's events reach the one session.

The port is as open as torchrun's own rendezvous store, which anyone who reaches it can join:
run several nodes on a network you trust. Messages are JSON lines.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

from tcprof.profiler.config import RunConfig, parse_endpoint
from tcprof.profiler.distributed.node_launch import NodeLaunch, fingerprint, free_port, rdzv_id

ACCEPT_POLL_S = 0.5
HELLO_TIMEOUT_S = 10.0


class NodesError(RuntimeError):
    """The other nodes did not join (in words, for the run's error)."""


class NodeLeader:
    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.host, port = parse_endpoint(config.rdzv_endpoint or "")
        self.fingerprint = fingerprint(config.to_dict())
        self._lock = threading.Lock()
        self._followers: dict[int, socket.socket] = {}
        self._joined = threading.Condition(self._lock)
        self._closed = False
        self._launches = 0  # each launch its own rendezvous id, --apply-advice's run's too
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        try:
            self._listener = socket.create_server(("", port), family=family)
        except OSError as exc:  # the port is taken (an earlier run, another service)
            raise NodesError(
                f"node 0 cannot listen on port {port} of --rdzv-endpoint "
                f"{config.rdzv_endpoint}: {exc.strerror or exc}"
            ) from exc
        self._listener.settimeout(ACCEPT_POLL_S)
        threading.Thread(target=self._accept, daemon=True, name="node-leader").start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._welcome, args=(conn,), daemon=True).start()

    def _welcome(self, conn: socket.socket) -> None:
        conn.settimeout(HELLO_TIMEOUT_S)
        try:
            hello = json.loads(conn.makefile("rb").readline(4096))
            node = hello.get("node_rank") if isinstance(hello, dict) else None
        except (OSError, ValueError):
            conn.close()
            return
        refusal = self._refusal(node, hello)
        if refusal:
            _send(conn, {"refused": refusal})
            conn.close()
            return
        assert isinstance(node, int)  # _refusal refuses any other
        conn.settimeout(None)
        _send(conn, {"welcome": True, "session": self.config.artifacts_dir})
        with self._joined:
            self._followers[node] = conn
            self._joined.notify_all()

    def _refusal(self, node: Any, hello: dict[str, Any]) -> str | None:
        nnodes = self.config.nnodes
        if not isinstance(node, int) or not 0 < node < nnodes:
            return f"node 0 expects node ranks 1 to {nnodes - 1}, not {node!r}"
        if node in self._followers:
            return f"node {node} has already joined"
        if hello.get("fingerprint") != self.fingerprint:
            return (
                f"node {node} runs another command than node 0 (the arms, batch sizes, steps, "
                "rounds, --nproc, --nnodes and --parallel must be the same on every node)"
            )
        return None

    def wait_for_followers(self) -> None:
        """Until every other node has joined, or the rendezvous timeout (NodesError)."""
        deadline = time.monotonic() + self.config.rdzv_timeout_s
        with self._joined:
            while len(self._followers) < self.config.nnodes - 1:
                left = deadline - time.monotonic()
                if left <= 0:
                    missing = sorted(set(range(1, self.config.nnodes)) - set(self._followers))
                    raise NodesError(
                        f"node(s) {', '.join(map(str, missing))} did not join node 0 at "
                        f"{self.config.rdzv_endpoint} within {self.config.rdzv_timeout_s:g} s "
                        "(run the same command there with --node-rank K)"
                    )
                self._joined.wait(min(left, ACCEPT_POLL_S))

    def plan(
        self, arm: int, replicate: int | str, connect_port: int, token: str, threads: int
    ) -> NodeLaunch:
        """The launch of one arm and round on every node (node 0's included)."""
        self._launches += 1
        return NodeLaunch(
            rdzv_id=f"{rdzv_id(self.fingerprint, arm, replicate)}-{self._launches}",
            host=self.host,
            rdzv_port=free_port(),
            connect_port=connect_port,
            token=token,
            nproc=self.config.nproc,
            nnodes=self.config.nnodes,
            timeout_s=self.config.rdzv_timeout_s,
            threads=threads,
        )

    def launch(self, launch: NodeLaunch) -> None:
        self._tell({"launch": launch.to_dict()})

    def end(self, launch: NodeLaunch) -> None:
        self._tell({"end": launch.rdzv_id})

    def finish(self, status: str) -> None:
        """The run is over: the followers end (after their last launch) and say where the
        session is; then the port closes."""
        self._tell({"finished": status, "session": self.config.artifacts_dir})
        self.close()

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        with self._lock:
            conns, self._followers = list(self._followers.values()), {}
        for conn in conns:
            conn.close()

    def _tell(self, message: dict[str, Any]) -> None:
        with self._lock:
            conns = list(self._followers.values())
        for conn in conns:
            _send(conn, message)


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    try:
        conn.sendall((json.dumps(message) + "\n").encode())
    except OSError:
        pass  # that node is gone: its ranks' absence ends the arm
