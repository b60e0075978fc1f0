"""A rank of a distributed arm: connect back to the engine, join the process group, wrap.

torchrun starts each rank in its own session with the inherited descriptors closed, so a rank
cannot use a worker's private pipe: it connects to the engine's socket (TCPROF_CONNECT, with
TCPROF_TOKEN to prove it was started by that engine), says which rank it is, then reads commands
and writes events on that connection exactly as a single worker does on its pipe and stdout.
A reader thread takes the commands; when the connection closes the rank ends itself (and its
process group) unless it is already leaving. The same thread answers `where` at once, even while
the main thread is stuck in a step: the engine asks it of a stalled arm to name the rank that
is behind.

After the model is built the rank joins the default process group (env://, gloo on cpu, nccl on
cuda with the device of its LOCAL_RANK) and wraps the model: DistributedDataParallel, or FSDP2's
fully_shard on each repeated block (blocks.py, the unit regional compilation compiles) and then
on the root. torch.compile is applied to the wrapped model afterwards, as PyTorch recommends.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import Any

from tcprof.profiler.protocol.wire import encode

CONNECT_ENV = "TCPROF_CONNECT"  # host:port of the engine's socket, set by distributed_worker.py
TOKEN_ENV = "TCPROF_TOKEN"
NODE_RANK_ENV = "TCPROF_NODE_RANK"  # set by profiler/distributed/node_launch.py on every node
RANK_PREFIX = "[rank ${rank}] "  # torchrun's template for each line a rank writes
LOST_GRACE_S = 2.0  # after the connection closed, time for an asked-for exit to finish
_END = object()


def is_rank() -> bool:
    return bool(os.environ.get(CONNECT_ENV))


def rank() -> int:
    return int(os.environ.get("RANK", "0"))


def local_rank() -> int:
    return int(os.environ.get("LOCAL_RANK", "0"))


def world_size() -> int:
    return int(os.environ.get("WORLD_SIZE", "1"))


def node_rank() -> int:
    """The user's --node-rank (torchrun's c10d rendezvous numbers the nodes its own way)."""
    return int(os.environ.get(NODE_RANK_ENV) or os.environ.get("GROUP_RANK") or "0")


class SocketChannel:
    """The EventChannel of a rank: events as lines on the connection (two threads write)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._lock = threading.Lock()

    def emit(self, type_: str, **fields: Any) -> None:
        data = encode({"type": type_, **fields})
        with self._lock:
            try:
                self._sock.sendall(data)
            except OSError:
                pass  # the engine is gone: the reader thread ends this rank


def connect() -> tuple[SocketChannel, Iterator[str]]:
    """Connect to the engine, introduce this rank, and start reading its commands."""
    host, _, port = os.environ[CONNECT_ENV].rpartition(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.settimeout(None)
    hello = {
        "token": os.environ.get(TOKEN_ENV, ""),
        "rank": rank(),
        "local_rank": local_rank(),
        "world_size": world_size(),
        "node": node_rank(),
        "host": socket.gethostname(),
        "pid": os.getpid(),
    }
    sock.sendall((json.dumps(hello) + "\n").encode())
    channel = SocketChannel(sock)
    commands: queue.Queue[str | object] = queue.Queue()  # lines, then _END
    threading.Thread(
        target=_read_commands, args=(sock, commands, channel), daemon=True, name="tcprof-rank-read"
    ).start()
    return channel, _lines(commands)


def _lines(commands: queue.Queue[str | object]) -> Iterator[str]:
    while True:
        line = commands.get()
        if not isinstance(line, str):  # _END
            return
        yield line


def _read_commands(
    sock: socket.socket, commands: queue.Queue[str | object], channel: SocketChannel
) -> None:
    main_id = threading.main_thread().ident
    with sock.makefile("r", encoding="utf-8") as stream:
        try:
            for line in stream:
                if _is_where(line):
                    channel.emit("rank_where", **where(main_id))
                    continue
                commands.put(line)
        except OSError:
            pass
    commands.put(_END)
    time.sleep(LOST_GRACE_S)  # an exit that was asked for ends the process before this
    from tcprof.profiler.worker import lifeline

    lifeline.end_group()


def _is_where(line: str) -> bool:
    try:
        cmd = json.loads(line)
    except ValueError:
        return False  # the main thread reports it as a protocol error
    return isinstance(cmd, dict) and cmd.get("cmd") == "where"


def where(thread_id: int | None) -> dict[str, Any]:
    """Where the main thread is: its innermost frame, and whether it is inside torch (waiting
    in a collective or the autograd engine) or in the model's own code."""
    frame = sys._current_frames().get(thread_id) if thread_id is not None else None
    if frame is None:
        return {"where": None, "in_torch": None, "idle": None}
    code = frame.f_code
    idle = code.co_filename in (__file__, queue.__file__, threading.__file__)
    return {
        "where": f"{code.co_filename}:{frame.f_lineno} ({code.co_name})",
        "in_torch": f"{os.sep}torch{os.sep}" in code.co_filename,
        "idle": idle,  # waiting for the engine's next command
    }


# -- inside the arm's worker (imports torch) ----------------------------------------------------
def init_process_group(device_name: str) -> str:
    """Join the run's process group; the device this rank computes on."""
    import torch
    import torch.distributed as dist

    if device_name == "cuda":
        device = f"cuda:{local_rank()}"
        torch.cuda.set_device(local_rank())
        dist.init_process_group("nccl", device_id=torch.device(device))
        return device
    dist.init_process_group("gloo")
    return device_name


def wrap(model: Any, parallel: str, block_module: str | None) -> tuple[Any, dict[str, Any]]:
    """The model wrapped for data parallel training, and what was done, for `loaded`."""
    import torch

    described: dict[str, Any] = {"parallel": parallel, "world_size": world_size()}
    if parallel == "ddp":
        from torch.nn.parallel import DistributedDataParallel

        ids = [local_rank()] if next(model.parameters()).is_cuda else None
        return DistributedDataParallel(model, device_ids=ids), described
    from torch.distributed.fsdp import fully_shard

    from tcprof.profiler.worker.blocks import NoRepeatedBlock, find_repeated_blocks

    try:
        blocks = find_repeated_blocks(model, block_module)
        for block in blocks.modules:
            fully_shard(block)
        described["sharded_blocks"] = blocks.describe()
    except NoRepeatedBlock:
        described["sharded_blocks"] = None  # the root alone
    fully_shard(model)
    assert isinstance(model, torch.nn.Module)
    return model, described


def own_job_pids() -> set[int]:
    """This rank's launcher and everything under it (the fellow ranks and their children):
    not peers to wait for before a timed block, since they wait for this rank."""
    import psutil

    try:
        launcher = psutil.Process(os.getppid())
        return {launcher.pid, *(p.pid for p in launcher.children(recursive=True))}
    except psutil.Error:
        return set()


def destroy_process_group() -> None:
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()


def launch(argv: list[str]) -> int:
    """torchrun (torch.distributed.run, PyTorch's launcher) with this process tied to the
    engine's life first, so a killed engine takes the launcher, and with it every rank, along.
    Each rank's output reaches the user line by line with its rank in front (`[rank 1] ...`):
    torchrun tees the ranks' streams through files in a folder of its own and prefixes them."""
    from tcprof.profiler.worker import lifeline

    lifeline.hold()
    from torch.distributed.run import main

    os.environ.setdefault("TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE", RANK_PREFIX)
    with tempfile.TemporaryDirectory(prefix="tcprof-ranks-") as logs:
        main(["--tee", "3", "--log-dir", logs, *argv])
    return 0


if __name__ == "__main__":
    from tcprof.profiler.worker import lifeline

    # no teardown of torch's modules: the engine waits for the launcher to end
    lifeline.quick_exit(launch(sys.argv[1:]))
