"""A distributed arm as one worker: torchrun and its ranks behind the WorkerHandle protocol.

The arm's processes are started by PyTorch's own launcher (`torch.distributed.run`, with its
rendezvous and elastic agent) on this machine: `--standalone --nproc-per-node N`, each rank
being `python -m tcprof.profiler.worker`. torchrun closes inherited descriptors and starts ranks in
their own sessions, so the ranks connect back to a socket this handle opens on the loopback
address (its address and a random token travel in the environment) and say which rank they
are. Commands go to every rank (a rank that connects late gets the ones it missed, in order);
events come back per rank and are merged by rank_merge.py, so the runner sees one worker.

Lifetimes: the launcher holds the engine's lifeline (it dies with the engine), each rank holds
the launcher's (Linux's parent-death signal) and ends itself when its connection closes. The
handle's process is the launcher; `stop` ends its group and every process under it, the ranks
(each in its own session) and their children included. The channel's end (`_eof`) is when the
launcher has ended and every rank's connection has been read to its end.

Several nodes (`--nnodes M`, node_leader.py): this handle is node 0's part. It listens on every
interface rather than the loopback address, runs torchrun with a c10d rendezvous whose store its
launcher hosts (node_launch.py), and has the leader tell the other nodes to start their own
torchrun for the same arm and round; their ranks connect here with the same token. The arm's
world is `nproc` x `nnodes` ranks. Ending the arm here tells the other nodes to end theirs.
"""

from __future__ import annotations

import collections
import json
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import IO, Any

import psutil

from tcprof.profiler.distributed.node_launch import NODE_RANK_ENV, NodeLaunch
from tcprof.profiler.distributed.node_leader import NodeLeader
from tcprof.profiler.distributed.rank_merge import RankMerger
from tcprof.profiler.process.handle import Inbox, OwnProcess, classify_exit
from tcprof.profiler.process.local import (
    OUTPUT_TAIL_LINES,
    READER_JOIN_S,
    SPAWNER,
    TERMINATE_GRACE_S,
    bounded_lines,
    worker_env,
)
from tcprof.profiler.process.log_limit import LogLimiter
from tcprof.profiler.protocol.wire import decode

# Read by profiler/worker/distributed.py (no import: it is the worker's side).
CONNECT_ENV = "TCPROF_CONNECT"
TOKEN_ENV = "TCPROF_TOKEN"
HELLO_TIMEOUT_S = 30.0  # a connection must say which rank it is within this
ACCEPT_POLL_S = 0.5
STACKS_GAP_S = 0.1  # shared by the ranks' stack dumps, so that their lines do not interleave


def launch_command(nproc: int, rendezvous: list[str] | None = None) -> list[str]:
    """The launcher and the ranks it starts: torchrun's own arguments (this machine alone, or
    a node's part of a rendezvous: NodeLaunch.torchrun_args), then the rank's program (-P: the
    working folder cannot shadow the engine, as for a single worker)."""
    python = [sys.executable, *(["-P"] if sys.version_info >= (3, 11) else [])]
    return [
        *python,
        "-m",
        "tcprof.profiler.worker.distributed",
        *(rendezvous if rendezvous is not None else torchrun_args(nproc)),
        "--no-python",
        *python,
        "-m",
        "tcprof.profiler.worker",
    ]


def torchrun_args(nproc: int) -> list[str]:
    return ["--standalone", "--nnodes", "1", "--nproc-per-node", str(nproc)]


class DistributedWorker(OwnProcess):
    """A `WorkerHandle` backed by a torchrun job of `nproc` ranks on this machine."""

    def __init__(
        self,
        index: int,
        inbox: Inbox,
        nproc: int,
        threads: int,
        extra_env: dict[str, str] | None = None,
        nodes: NodeLeader | None = None,
        replicate: int | str = 0,
    ) -> None:
        """nodes: node 0's leader of a run on several nodes (None: this machine alone)."""
        self.index = index
        self._inbox = inbox
        self.nproc = nproc * (nodes.config.nnodes if nodes else 1)  # the arm's world
        self.stopped_by_us = False
        self._lock = threading.Lock()
        self._conns: dict[int, socket.socket] = {}
        self._sent: list[bytes] = []
        self._ended = False  # a rank failed or the engine stopped the arm: events are dropped
        self._first_lost: int | None = None
        self._rank_readers: list[threading.Thread] = []
        self._threads: list[threading.Thread] = []
        self._output_tail: collections.deque[str] = collections.deque(maxlen=OUTPUT_TAIL_LINES)
        self._output_limits = [LogLimiter(self._put), LogLimiter(self._put)]  # per stream
        self._merger = RankMerger(self.nproc, self._put)
        self._token = secrets.token_hex(16)
        # the other nodes' ranks connect from elsewhere: every interface (token-checked)
        self._listener = socket.create_server(("" if nodes else "127.0.0.1", 0))
        self._listener.settimeout(ACCEPT_POLL_S)
        port = self._listener.getsockname()[1]
        self._nodes = nodes
        self._launch: NodeLaunch | None = None
        if nodes is not None:
            self._launch = nodes.plan(index, replicate, port, self._token, threads)
        env = worker_env(extra_env, None)
        env[CONNECT_ENV] = f"127.0.0.1:{port}"
        env[TOKEN_ENV] = self._token
        env["OMP_NUM_THREADS"] = str(max(1, threads))  # in place of torchrun's default of 1
        if self._launch is not None:
            env[NODE_RANK_ENV] = "0"  # this node's ranks connect over the loopback address
        rendezvous = self._launch.torchrun_args(0) if self._launch else None
        try:
            self.proc = SPAWNER.popen(
                launch_command(nproc, rendezvous),
                close_after=None,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=env,
            )
        except BaseException:
            self._listener.close()
            raise
        self.pid = self.proc.pid
        if nodes is not None and self._launch is not None:
            nodes.launch(self._launch)  # the other nodes start their part of this arm
        self._start(self._accept, name="accept")
        self._output_readers = [
            self._start(self._read_output, self.proc.stdout, 0, name="stdout"),
            self._start(self._read_output, self.proc.stderr, 1, name="stderr"),
        ]
        self._start(self._end_of_channel, name="eof")

    def _start(self, target: Callable[..., object], *args: Any, name: str) -> threading.Thread:
        t = threading.Thread(
            target=target, args=args, daemon=True, name=f"worker{self.index}-{name}"
        )
        t.start()
        self._threads.append(t)
        return t

    def _put(self, event: dict[str, Any]) -> None:
        self._inbox.put((self.index, event))

    # -- the ranks' connections -----------------------------------------------------------------
    def _accept(self) -> None:
        while len(self._conns) < self.nproc and not self._ended and self.proc.poll() is None:
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # the listener was closed: the arm is ending
            conn.settimeout(HELLO_TIMEOUT_S)
            stream = conn.makefile("rb")
            rank = self._introduce(stream)
            if rank is None:
                stream.close()
                conn.close()
                continue
            conn.settimeout(None)
            with self._lock:
                for data in self._sent:  # the commands sent before this rank was there
                    _send(conn, data)
                self._conns[rank] = conn
            self._rank_readers.append(
                self._start(self._read_rank, rank, stream, name=f"rank{rank}")
            )

    def _introduce(self, stream: IO[bytes]) -> int | None:
        """The rank a new connection speaks for, if it knows the token (else None)."""
        try:
            hello = json.loads(stream.readline(4096))
        except (OSError, ValueError):
            return None
        if not isinstance(hello, dict) or not secrets.compare_digest(
            str(hello.get("token", "")), self._token
        ):
            return None
        rank = hello.get("rank")
        if not isinstance(rank, int) or not 0 <= rank < self.nproc or rank in self._conns:
            return None
        self._merger.identity[rank] = {
            "node": hello.get("node", 0),
            "host": hello.get("host"),
            "pid": hello.get("pid"),
        }
        return rank

    def _read_rank(self, rank: int, stream: IO[bytes]) -> None:
        said_bye = False
        for line in _lines(stream):
            try:
                event = decode(line)
            except ValueError:
                continue
            said_bye = said_bye or event.get("type") == "bye"
            with self._lock:
                if self._ended:
                    continue
                dead = self._dead_peer(rank) if event.get("type") == "error" else None
                if dead is not None:  # its error is the others' collective failing: not theirs
                    self._first_lost = dead if self._first_lost is None else self._first_lost
                    self._ended = True
                    threading.Thread(target=self._end_ranks, daemon=True).start()
                elif self._merger.offer(rank, event):
                    self._ended = True
                    threading.Thread(target=self._end_ranks, daemon=True).start()
        with self._lock:
            if not said_bye and not self._ended and self._first_lost is None:
                self._first_lost = rank  # the rank that ended unasked, before the others

    def _dead_peer(self, rank: int) -> int | None:
        """Another rank whose process has already ended (a crash the others then felt)."""
        for other, who in sorted(self._merger.identity.items()):
            if other == rank or not who.get("pid") or who.get("node", 0) != 0:
                continue  # another node's pid means nothing here
            try:
                if psutil.Process(who["pid"]).status() != psutil.STATUS_ZOMBIE:
                    continue
            except psutil.Error:
                pass
            return other
        return None

    def first_to_end(self) -> str | None:
        """The rank whose end, unasked, ended the arm (its launcher then ended the others)."""
        with self._lock:
            lost = self._first_lost
            return None if lost is None else f"{self._merger.name(lost)} ended first"

    def _read_output(self, stream: IO[bytes], which: int) -> None:
        """The launcher's output, which the ranks share (their prints go to stderr)."""
        for text in bounded_lines(stream):
            self._output_tail.append(text)
            self._output_limits[which].offer({"type": "log", "stream": "output", "text": text})
        self._output_limits[which].finish()

    def _end_of_channel(self) -> None:
        """`_eof` once the launcher ended and every rank's events were read."""
        self.proc.wait()
        self._end_other_nodes()
        self._listener.close()
        for t in self._rank_readers:  # the ranks are gone: their connections read to the end
            t.join(timeout=READER_JOIN_S)
        self._end_ranks()  # a rank that outlived its launcher, or a connection left open
        for t in self._output_readers:
            t.join(timeout=READER_JOIN_S)
        self._put({"type": "_eof"})

    # -- the protocol ---------------------------------------------------------------------------
    def send(self, command: dict[str, Any]) -> bool:
        data = (json.dumps(command) + "\n").encode()
        with self._lock:
            self._sent.append(data)
            for conn in self._conns.values():
                _send(conn, data)
        return self.proc.poll() is None

    def stop(self, grace_s: float = TERMINATE_GRACE_S) -> None:
        """End the launcher's group and every process under it (the ranks, in their own
        sessions, and their children), reap it, and read its output to the end."""
        if self.proc.poll() is None:
            self.stopped_by_us = True
        with self._lock:
            self._ended = True
        below = _descendants(self.pid)
        self.end_group(grace_s)
        _kill(below)
        self._end_other_nodes()
        self._end_ranks()
        self._listener.close()
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(timeout=READER_JOIN_S)

    def _end_other_nodes(self) -> None:
        """The other nodes end their torchrun of this arm (once; nothing on one machine)."""
        launch, self._launch = self._launch, None
        if self._nodes is not None and launch is not None:
            self._nodes.end(launch)

    def _end_ranks(self) -> None:
        """Kill every rank (and what it started) and close their connections."""
        _kill(_descendants(self.pid))
        with self._lock:
            conns = list(self._conns.values())
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def dump_stacks(self) -> None:
        """Every rank prints its stacks (faulthandler) and says where its main thread is."""
        ranks = [p for p in _descendants(self.pid) if p.pid in self._rank_pids()]
        for proc in ranks if hasattr(signal, "SIGUSR1") else []:
            try:
                proc.send_signal(signal.SIGUSR1)
            except psutil.Error:
                pass
            time.sleep(STACKS_GAP_S / len(ranks))  # one rank's stacks after another's
        with self._lock:
            for conn in self._conns.values():
                _send(conn, b'{"cmd": "where"}\n')

    def _rank_pids(self) -> set[int]:
        return {pid for who in self._merger.identity.values() if (pid := who.get("pid"))}

    def straggler(self) -> str | None:
        """The rank a stalled arm waits for, in words (after dump_stacks had time to answer)."""
        with self._lock:
            return self._merger.straggler()

    def output_tail(self) -> list[str]:
        return list(self._output_tail)

    def classify_exit(self) -> dict[str, Any]:
        return classify_exit(self.proc.poll(), self.stopped_by_us)


def _send(conn: socket.socket, data: bytes) -> None:
    try:
        conn.sendall(data)
    except OSError:
        pass  # that rank is gone: the launcher's end says so


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        children: list[psutil.Process] = psutil.Process(pid).children(recursive=True)
        return children
    except psutil.Error:
        return []


def _kill(procs: list[psutil.Process]) -> None:
    for proc in procs:
        try:
            proc.kill()  # psutil checks it is still the same process (no reused pid)
        except psutil.Error:
            pass


def _lines(stream: IO[bytes]) -> Iterator[bytes]:
    """A rank's lines until its connection ends; a rank killed mid-write resets it, which is
    the same end (whether it said bye decides what it means), not an error of the reader."""
    try:
        yield from stream
    except OSError:
        return
