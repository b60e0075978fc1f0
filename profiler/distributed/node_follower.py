"""A node other than 0 of a run on several nodes: it follows node 0 (node_leader.py).

`tcprof run ... --nnodes M --node-rank K` with K > 0 connects to node 0's `--rdzv-endpoint`
(retrying until `--rdzv-timeout`, so the nodes can be started in any order), then starts the
torchrun of each distributed arm and round node 0 announces, with node 0's address and the
arm's token in its ranks' environment, and ends it when node 0 says so. Node 0 drives the
ranks and writes the session; this node writes nothing. If node 0 goes away, every process
this node started ends, and so does this command, with an error.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import IO, Any

import psutil

from tcprof.profiler.config import RunConfig, parse_endpoint
from tcprof.profiler.distributed.node_launch import NodeLaunch, fingerprint
from tcprof.profiler.distributed.torchrun_worker import launch_command
from tcprof.profiler.process.local import SPAWNER, worker_env

CONNECT_RETRY_S = 0.5
END_GRACE_S = 5.0

Say = Callable[[str], None]


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def follow(config: RunConfig, say: Say = _stderr) -> int:
    """Follow node 0 until its run ends: 0 when it finished, 1 when it could not be reached
    or went away."""
    host, port = parse_endpoint(config.rdzv_endpoint or "")
    node = config.node_rank
    try:
        conn = _connect(host, port, config.rdzv_timeout_s)
    except OSError as exc:
        say(
            f"tcprof: error: node {node}: node 0 at {host}:{port} did not answer within "
            f"{config.rdzv_timeout_s:g} s ({exc}); start node 0 with the same command and "
            "--node-rank 0"
        )
        return 1
    conn.settimeout(None)  # node 0's next message may be a whole arm away
    hello = {"node_rank": node, "fingerprint": fingerprint(config.to_dict())}
    hello["host"] = socket.gethostname()
    conn.sendall((json.dumps(hello) + "\n").encode())
    launches: dict[str, subprocess.Popen[bytes]] = {}
    try:
        return _follow(conn.makefile("rb"), node, f"{host}:{port}", launches, say)
    finally:
        for proc in launches.values():
            _end(proc)
        conn.close()


def _connect(host: str, port: int, timeout_s: float) -> socket.socket:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return socket.create_connection((host, port), timeout=10)
        except OSError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(CONNECT_RETRY_S)


def _follow(
    stream: IO[bytes], node: int, where: str, launches: dict[str, subprocess.Popen[bytes]], say: Say
) -> int:
    for line in stream:
        try:
            message: dict[str, Any] = json.loads(line)
        except ValueError:
            continue
        if "refused" in message:
            say(f"tcprof: error: node 0 refused node {node}: {message['refused']}")
            return 1
        if "welcome" in message:
            say(
                f"tcprof: node {node} follows node 0 at {where}: node 0 runs the schedule and "
                f"writes the session ({message.get('session')})"
            )
        elif "launch" in message:
            launch = NodeLaunch.from_dict(message["launch"])
            launches[launch.rdzv_id] = _start(launch, node)
        elif "end" in message:
            proc = launches.pop(str(message["end"]), None)
            if proc is not None:
                _end(proc, grace_s=END_GRACE_S)
        elif "finished" in message:
            say(
                f"tcprof: node 0's run ended ({message['finished']}); "
                f"session: {message.get('session')}"
            )
            return 0
    say(f"tcprof: error: node {node}: the connection to node 0 at {where} closed mid-run")
    return 1


def _start(launch: NodeLaunch, node: int) -> subprocess.Popen[bytes]:
    """This node's torchrun of one arm and round (its output is this command's)."""
    env = worker_env(launch.rank_env(node), None)
    env["OMP_NUM_THREADS"] = str(max(1, launch.threads))
    return SPAWNER.popen(
        launch_command(launch.nproc, launch.torchrun_args(node)),
        close_after=None,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )


def _end(proc: subprocess.Popen[bytes], grace_s: float = 0.0) -> None:
    """The launcher's group and every rank under it (each in its own session), once it had
    `grace_s` to end by itself (its ranks were told to exit by node 0)."""
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    try:
        below = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        below = []
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for child in below:
        try:
            child.kill()
        except psutil.Error:
            pass
    proc.wait()
