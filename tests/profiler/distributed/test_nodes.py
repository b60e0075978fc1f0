"""Several nodes without torch: the settings, node 0's leader and a follower's errors.

The real two-node run is in test_distributed.py; here node 0's leader and a follower talk
over real loopback sockets with no worker started.
"""

from __future__ import annotations

import json
import socket
import threading

import pytest

from tcprof.profiler.cli.main import EXIT_ERROR, exit_code
from tcprof.profiler.config import ConfigError, ModelSource, RunConfig
from tcprof.profiler.distributed.node_follower import follow
from tcprof.profiler.distributed.node_launch import NodeLaunch, fingerprint
from tcprof.profiler.distributed.node_leader import NodeLeader, NodesError
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.run.runner import Runner

pytestmark = pytest.mark.timeout(30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _config(node_rank: int = 0, port: int = 1, **kw) -> RunConfig:
    kw = {"nproc": 1, "parallel": "ddp", "nnodes": 2, "rdzv_timeout_s": 2.0, **kw}
    endpoint = f"127.0.0.1:{port}"
    return RunConfig(source=ModelSource("m.py"), node_rank=node_rank, rdzv_endpoint=endpoint, **kw)


def test_the_node_settings_are_checked():
    with pytest.raises(ConfigError, match="--node-rank is between 0 and 1"):
        _config(node_rank=2)
    with pytest.raises(ConfigError, match="needs --rdzv-endpoint"):
        RunConfig(source=ModelSource("m.py"), nnodes=2, parallel="ddp")
    with pytest.raises(ConfigError, match="HOST:PORT"):
        RunConfig(source=ModelSource("m.py"), nnodes=2, parallel="ddp", rdzv_endpoint="host")
    with pytest.raises(ConfigError, match="give --parallel"):
        _config(parallel="none")
    with pytest.raises(ConfigError, match="--rdzv-timeout"):
        _config(rdzv_timeout_s=0)
    cfg = _config(port=29500)
    assert RunConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.world_size(cfg.arms[0]) == 2


def test_every_node_starts_its_part_of_one_rendezvous_hosted_by_node_0():
    launch = NodeLaunch("tcprof-x-a0-r1", "10.0.0.1", 4000, 4001, "t", 2, 3, 60.0, 4)
    args = launch.torchrun_args(2)
    assert args[args.index("--rdzv-endpoint") + 1] == "10.0.0.1:4000"
    assert args[args.index("--rdzv-conf") + 1].endswith("is_host=0")
    assert launch.torchrun_args(0)[-1].endswith("is_host=1")
    assert launch.rank_env(2)["TCPROF_CONNECT"] == "10.0.0.1:4001"
    assert NodeLaunch.from_dict(launch.to_dict()) == launch
    # a follower's own paths differ: the command is the same
    assert fingerprint(_config(artifacts_dir="/a").to_dict()) == fingerprint(
        _config(node_rank=1, artifacts_dir="/b").to_dict()
    )


def test_node_0_names_the_nodes_that_did_not_join():
    leader = NodeLeader(_config(port=_free_port(), rdzv_timeout_s=0.3))
    try:
        with pytest.raises(NodesError, match=r"node\(s\) 1 did not join node 0 at 127.0.0.1:"):
            leader.wait_for_followers()
    finally:
        leader.close()


def test_node_0_refuses_a_node_that_runs_another_command():
    port = _free_port()
    leader = NodeLeader(_config(port=port))
    said: list[str] = []
    try:
        rc = follow(_config(node_rank=1, port=port, steps=7), said.append)
    finally:
        leader.close()
    assert rc == 1
    assert said == [
        "tcprof: error: node 0 refused node 1: node 1 runs another command than node 0 (the "
        "arms, batch sizes, steps, rounds, --nproc, --nnodes and --parallel must be the same on "
        "every node)"
    ]


def test_a_follower_says_when_node_0_cannot_be_reached():
    said: list[str] = []
    port = _free_port()
    assert follow(_config(node_rank=1, port=port, rdzv_timeout_s=0.5), said.append) == 1
    assert said[0].startswith(f"tcprof: error: node 1: node 0 at 127.0.0.1:{port} did not answer")


def test_a_follower_ends_with_an_error_when_node_0_goes_away_mid_run():
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def node_0_then_gone() -> None:
        conn, _ = server.accept()
        conn.makefile("rb").readline()
        conn.sendall((json.dumps({"welcome": True, "session": "/s"}) + "\n").encode())
        conn.close()

    thread = threading.Thread(target=node_0_then_gone, daemon=True)
    thread.start()
    said: list[str] = []
    try:
        assert follow(_config(node_rank=1, port=port), said.append) == 1
    finally:
        server.close()
    assert said[0].startswith("tcprof: node 1 follows node 0 at 127.0.0.1:")
    assert said[0].endswith("writes the session (/s)")
    assert said[1] == (
        f"tcprof: error: node 1: the connection to node 0 at 127.0.0.1:{port} closed mid-run"
    )


def test_a_run_whose_other_nodes_never_join_ends_with_that_error(tmp_path):
    config = _config(port=_free_port(), rdzv_timeout_s=0.3, artifacts_dir=str(tmp_path))
    session = Runner(config).run()  # no worker starts before the nodes meet
    (error,) = session.errors
    assert error["kind"] == "rendezvous" and "node(s) 1 did not join" in error["message"]
    assert session.status == "completed_with_errors"
    assert exit_code(SessionModel.from_json(session.to_dict())) == EXIT_ERROR


def test_the_window_runs_node_0_only(tmp_path):
    config = _config(node_rank=1, artifacts_dir=str(tmp_path))
    (error,) = Runner(config).run().errors
    assert error["message"].startswith("node 1 follows node 0 from the command line")


def test_node_0_says_when_its_port_is_taken():
    with socket.create_server(("", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(NodesError, match=f"node 0 cannot listen on port {port}"):
            NodeLeader(_config(port=port))


def test_node_0_refuses_a_second_node_with_the_same_rank():
    port = _free_port()
    leader = NodeLeader(_config(port=port))
    first: list[str] = []
    thread = threading.Thread(target=follow, args=(_config(node_rank=1, port=port), first.append))
    thread.start()
    try:
        leader.wait_for_followers()
        said: list[str] = []
        assert follow(_config(node_rank=1, port=port), said.append) == 1
    finally:
        leader.close()
        thread.join(timeout=10)
    assert said == ["tcprof: error: node 0 refused node 1: node 1 has already joined"]
    assert first[-1].endswith("closed mid-run")  # node 0 went away: the first one ends too
