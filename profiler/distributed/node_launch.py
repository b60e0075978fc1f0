"""One distributed arm's torchrun on every node: what node 0 tells the nodes that follow it.

With `--nnodes M` every node runs its own torchrun for the arm, all meeting in a c10d
rendezvous: its store is hosted by node 0's launcher (`is_host=1`; the others are its clients)
on a port node 0 picks per launch, so the arms of a round, which load side by side, never share
a store. The rendezvous id names the arm and round (`tcprof-<run>-a<arm>-r<round>`), so a node
can never join another arm's job. Every rank, on whichever node, connects back to node 0's
listener for that arm with the arm's token, exactly as the ranks of one machine do.
No torch, no Qt: read by the engine (node_leader.py, distributed_worker.py) and the followers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import socket
from typing import Any

# Read by profiler/worker/distributed.py (no import: it is the worker's side).
NODE_RANK_ENV = "TCPROF_NODE_RANK"
# What must agree between the nodes' commands (not paths: they differ between machines).
AGREED: tuple[str, ...] = ("arms", "batch_sizes", "warmup", "steps", "blocks", "replicates")
AGREED += ("seed", "nproc", "nnodes", "parallel", "loop", "optimizer", "device", "control")


@dataclasses.dataclass(frozen=True)
class NodeLaunch:
    rdzv_id: str
    host: str  # node 0's address, as every node reaches it (the --rdzv-endpoint host)
    rdzv_port: int  # the rendezvous store of this launch, hosted by node 0's launcher
    connect_port: int  # node 0's listener for this arm's ranks
    token: str
    nproc: int
    nnodes: int
    timeout_s: float
    threads: int  # per rank on every node: the host's physical cores over its local ranks

    def torchrun_args(self, node_rank: int) -> list[str]:
        """torchrun's rendezvous arguments on `node_rank` (which c10d does not read: the nodes
        are told apart by TCPROF_NODE_RANK, and node 0 by hosting the store)."""
        timeout = max(1, int(self.timeout_s))
        conf = f"join_timeout={timeout},read_timeout={timeout},is_host={int(node_rank == 0)}"
        return [
            "--nnodes",
            str(self.nnodes),
            "--nproc-per-node",
            str(self.nproc),
            "--rdzv-backend",
            "c10d",
            "--rdzv-endpoint",
            f"{_bracketed(self.host)}:{self.rdzv_port}",
            "--rdzv-id",
            self.rdzv_id,
            "--rdzv-conf",
            conf,
        ]

    def rank_env(self, node_rank: int) -> dict[str, str]:
        """What the ranks of `node_rank` need to connect back to node 0."""
        return {
            "TCPROF_CONNECT": f"{self.host}:{self.connect_port}",
            "TCPROF_TOKEN": self.token,
            NODE_RANK_ENV: str(node_rank),
        }

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NodeLaunch:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def rdzv_id(fingerprint: str, arm: int, replicate: int | str) -> str:
    return f"tcprof-{fingerprint[:12]}-a{arm}-r{replicate}"


def fingerprint(config: dict[str, Any]) -> str:
    """The same on every node that runs the same command (whatever its --node-rank)."""
    agreed = {key: config.get(key) for key in AGREED}
    return hashlib.sha256(json.dumps(agreed, sort_keys=True, default=str).encode()).hexdigest()


def free_port() -> int:
    """A port nothing listens on now, for a launch's rendezvous store (node 0 binds it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("", 0))
        return int(sock.getsockname()[1])


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host
