"""A scripted worker for fast tests of the runner's schedule: no process, no torch.

`FakeWorkers` is a `WorkerFactory` (profiler/process/handle.py). Each worker it starts keeps the
`WorkerHandle` promises and answers a command at once with the events the real worker sends
(profiler/worker/arm_worker.py), in the same order and with the same fields (fake_events.py),
then `done`. Per arm it is scripted: the step time it reports, and faults at a command
(optionally at one batch size, block or process of the arm): a fatal error, a non-fatal one,
out of memory, a crash (the process dies mid-command by SIGSEGV), an exit (it ends itself with
code 0 mid-command; exit_held: the same, but a child it forked keeps its event channel open, so
no end of the channel is ever seen), a closed channel (its event channel closes, then it exits with code 1, as
a real worker whose model closed the event fd does) or a hang (after announcing its phase, no
answer ever, until it is stopped; asked for its stacks, it prints one). A command the real
worker would refuse in its state (measuring a batch size that was never prepared) is a fatal
`protocol` error, so a broken schedule cannot pass unnoticed.

Every command any of them receives is logged in order (`FakeWorkers.received`).
"""

from __future__ import annotations

import itertools
import math
import queue
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcprof.profiler.config import RunConfig
from tcprof.profiler.process.handle import classify_exit
from tcprof.profiler.protocol.events import PROTOCOL_VERSION
from tests.support import fake_events

FAULT_KINDS = ("fatal", "error", "oom", "crash", "exit", "exit_held", "close_channel", "hang")
HUNG_STACK = 'File "model.py", line 7 in forward'  # what a hung fake prints when asked
FAKE_PID_BASE = 3_900_000  # above any real pid here: a quiet-room peer that is never found


@dataclass(frozen=True)
class Fault:
    """What goes wrong, and where: the first command named `cmd` that matches the rest."""

    cmd: str
    kind: str  # one of FAULT_KINDS
    batch_size: int | None = None  # None: any
    block: int | None = None  # for `measure`; None: any
    process: int | None = None  # the arm's n-th worker (0: first round's); None: any
    error_kind: str = "runtime"  # the error event's kind, for "fatal" and "error"

    def __post_init__(self) -> None:
        assert self.kind in FAULT_KINDS, self.kind

    def matches(self, command: dict[str, Any], process: int) -> bool:
        return (
            command.get("cmd") == self.cmd
            and self.batch_size in (None, command.get("batch_size"))
            and self.block in (None, command.get("block"))
            and self.process in (None, process)
        )


@dataclass(frozen=True)
class ArmScript:
    step_ms: float = 10.0  # every step of this arm takes this long
    compile_s: float = 0.5  # a compiled arm's first step compiles for this long
    faults: tuple[Fault, ...] = ()
    # per process (round) a factor on step_ms, cycling: round-to-round variation for tests of
    # a run that stops when settled; empty: every round alike
    round_factors: tuple[float, ...] = ()


@dataclass(frozen=True)
class Received:
    seq: int  # order across all workers of the run
    t: float  # time.monotonic() on receipt
    arm: int
    process: int  # which of the arm's workers: 0, 1, ... in start order
    command: dict[str, Any]

    @property
    def cmd(self) -> str:
        return self.command["cmd"]


class _Failed(Exception):
    def __init__(self, event: dict[str, Any]) -> None:
        super().__init__(event["message"])
        self.event = event


class _Died(Exception):
    """The fake process ended mid-command, or hangs there: no `done` follows."""


class FakeWorkers:
    """The factory: one FakeWorker per call, scripted by arm index."""

    def __init__(self, scripts: dict[int, ArmScript] | None = None) -> None:
        self.scripts = scripts or {}
        self.received: list[Received] = []
        self.workers: list[FakeWorker] = []
        self.hanging = threading.Event()  # set when a worker starts hanging
        self._seq = itertools.count()
        self._lock = threading.Lock()

    def __call__(self, index: int, inbox: queue.Queue, env: dict[str, str]) -> FakeWorker:
        process = sum(1 for w in self.workers if w.index == index)
        worker = FakeWorker(
            index,
            inbox,
            env,
            self.scripts.get(index, ArmScript()),
            process,
            FAKE_PID_BASE + len(self.workers),
            self,
        )
        self.workers.append(worker)
        return worker

    def log(self, worker: FakeWorker, command: dict[str, Any]) -> None:
        with self._lock:
            seq = next(self._seq)
            self.received.append(
                Received(seq, time.monotonic(), worker.index, worker.process, dict(command))
            )

    def commands(
        self, cmd: str | None = None, arm: int | None = None, process: int | None = None
    ) -> list[Received]:
        return [
            r
            for r in self.received
            if cmd in (None, r.cmd) and arm in (None, r.arm) and process in (None, r.process)
        ]


class FakeWorker:
    def __init__(
        self,
        index: int,
        inbox: queue.Queue,
        env: dict[str, str],
        script: ArmScript,
        process: int,
        pid: int,
        fleet: FakeWorkers,
    ) -> None:
        self.index = index
        self.pid = pid
        self.env = env
        self.script = script
        self.process = process
        self.stopped_by_us = False
        self.hung_on: dict[str, Any] | None = None
        self.hung_since: float | None = None  # time.monotonic() when it began to hang
        self.output: list[str] = []  # what it printed (log stream "output")
        self._inbox = inbox
        self._fleet = fleet
        self._code: int | None = None
        self._exited = threading.Event()
        self._config: RunConfig | None = None
        self._compiled = False
        self._prepared: set[int] = set()
        self._next_step = 0
        self._faults = list(script.faults)
        self._emit("ready", protocol=PROTOCOL_VERSION)

    # -- WorkerHandle ---------------------------------------------------------------------------
    def send(self, command: dict[str, Any]) -> bool:
        if self._code is not None:
            return False
        self._fleet.log(self, command)
        if self.hung_on is not None:
            return True  # a hung worker reads no more commands
        name = command.get("cmd")
        if name == "exit":
            self._emit("bye")
            self._end(0)
            return True
        fault = self._take_fault(command)
        handler = _HANDLERS.get(name)
        try:
            if handler is None:
                raise _Failed(fake_events.protocol_error(f"unknown command {name!r}"))
            handler(self, command, fault)
        except _Failed as failed:
            self._emit("error", **failed.event)
            self._emit("done", cmd=name, failed=True)
            return True
        except _Died:
            return True
        self._emit("done", cmd=name)
        return True

    def alive(self) -> bool:
        return self._code is None

    def wait(self, timeout_s: float) -> bool:
        return self._exited.wait(timeout_s)

    def stop(self, grace_s: float = 1.0) -> None:
        if self._code is None:
            self.stopped_by_us = True
            self._end(-signal.SIGTERM)

    def classify_exit(self) -> dict[str, Any]:
        return classify_exit(self._code, self.stopped_by_us)

    def dump_stacks(self) -> None:
        if self.hung_on is not None and self._code is None:
            self._print("Thread 0x0001 (most recent call first):")
            self._print(f"  {HUNG_STACK}")

    def output_tail(self) -> list[str]:
        return self.output[-200:]

    # -- the process ----------------------------------------------------------------------------
    def _emit(self, type_: str, **fields: Any) -> None:
        self._inbox.put((self.index, {"type": type_, **fields}))

    def _print(self, text: str) -> None:
        self.output.append(text)
        self._emit("log", stream="output", text=text)

    def _end(self, code: int, eof: bool = True) -> None:
        self._code = code
        self._exited.set()
        if eof:
            self._emit("_eof")

    def _hang(self, command: dict[str, Any]) -> None:
        self.hung_on = command
        self.hung_since = time.monotonic()
        self._fleet.hanging.set()

    def _take_fault(self, command: dict[str, Any]) -> Fault | None:
        for fault in self._faults:
            if fault.matches(command, self.process):
                self._faults.remove(fault)
                return fault
        return None

    def _trip(self, fault: Fault | None, batch_size: int | None, command: dict[str, Any]) -> None:
        """Where a command's work would fail: raise the scripted fault, if any."""
        if fault is None:
            return
        if fault.kind == "hang":
            self._hang(command)
            raise _Died
        if fault.kind == "crash":
            self._print("Fatal Python error: Segmentation fault")
            self._end(-signal.SIGSEGV)
            raise _Died
        if fault.kind in ("exit", "exit_held"):
            self._end(0, eof=fault.kind == "exit")
            raise _Died
        if fault.kind == "close_channel":
            self._emit("_eof")  # the channel closes; the process goes on a moment, then fails
            self._print("OSError: [Errno 9] Bad file descriptor")
            threading.Timer(0.5, self._end, (1, False)).start()
            raise _Died
        if fault.kind == "oom":
            self._prepared.discard(batch_size)  # the real worker releases the batch size
            message = f"out of memory at batch size {batch_size}"
            raise _Failed(fake_events.error("oom", message, batch_size, fatal=False))
        message = f"scripted {fault.kind} at {fault.cmd}"
        fatal = fault.kind == "fatal"
        raise _Failed(fake_events.error(fault.error_kind, message, batch_size, fatal))

    def _require(self, ok: bool, why: str) -> None:
        if not ok:
            raise _Failed(fake_events.protocol_error(why))

    # -- commands, answered as profiler/worker/arm_worker.py answers them -------------------------
    def load(self, cmd: dict[str, Any], fault: Fault | None) -> None:
        cfg = self._config = RunConfig.from_dict(cmd["config"])
        spec = cfg.run_arms[cmd["arm_index"]]
        self._compiled = spec.compiled
        self._emit("hello", **fake_events.environment(cfg.device, spec.compiled, self.pid))
        self._emit("phase", phase="loading", batch_size=None)
        self._trip(fault, None, cmd)
        if cmd.get("cache_artifacts"):
            self._emit("cache_loaded", loaded=True, artifacts={"inductor": 1})
        cache_dir = cmd.get("cache_dir") if spec.compiled else None
        self._emit("loaded", **fake_events.loaded(cache_dir, cfg.threads))

    def prepare(self, cmd: dict[str, Any], fault: Fault | None) -> None:
        bs = cmd["batch_size"]
        cfg = self._config
        self._require(cfg is not None, "prepare before load")
        assert cfg is not None
        phase = "compiling" if self._compiled else "first_step"
        self._emit("phase", phase=phase, batch_size=bs)
        self._trip(fault, bs, cmd)
        compile_s = self.script.compile_s if self._compiled else 0.0
        if self._compiled:
            self._emit("compile", batch_size=bs, step=0, **fake_events.first_compile(compile_s))
        self._emit(
            "first_step",
            batch_size=bs,
            ms=compile_s * 1000 + self.script.step_ms,
            loss=1.0,
            grad_norm=0.5,
            compile_s=compile_s,
            compiles=1 if self._compiled else 0,
            compile_peak_mb=200.0,
        )
        self._memory(bs, 0)
        self._prepared.add(bs)
        self._next_step = 1
        if cfg.warmup:
            self._emit("phase", phase="warmup", batch_size=bs)
            self._steps(bs, cfg.warmup, "warmup")

    def measure(self, cmd: dict[str, Any], fault: Fault | None) -> None:
        bs, block = cmd["batch_size"], cmd.get("block", 0)
        self._require(bs in self._prepared, f"measure at batch size {bs}, never prepared")
        assert self._config is not None
        self._emit("phase", phase="measuring", batch_size=bs)
        self._trip(fault, bs, cmd)
        self._next_step += 1  # the discarded step
        wanted = math.ceil(self._config.min_block_ms / self.script.step_ms)
        ran = self._steps(bs, max(cmd["steps"], wanted), "measure", block=block)
        self._emit(
            "block_done",
            batch_size=bs,
            block=block,
            steps=ran,
            quiet=True,
            waited_s=0.0,
            random_wait_s=float(cmd.get("wait_s") or 0.0),  # drawn, not slept: no time to waste
            busy_elsewhere=0.0,
            contended=False,
            reference_us=200.0,  # a steady machine's readings (worker/machine_speed.py)
            reference_after_us=200.0,
        )

    def finish(self, cmd: dict[str, Any], fault: Fault | None) -> None:
        bs = cmd["batch_size"]
        self._require(bs in self._prepared, f"finish at batch size {bs}, never prepared")
        self._trip(fault, bs, cmd)
        steady = fake_events.STEADY if cmd.get("detail") else {}
        self._emit(
            "bs_done",
            batch_size=bs,
            last_loss=0.9,
            graphs=1 if self._compiled else 0,
            recompiles=0,
            graph_breaks=0,
            fell_back=False,
            dynamo_compile_s=self.script.compile_s if self._compiled else 0,
            **fake_events.PEAKS,
            **steady,
        )
        self._prepared.discard(bs)
        self._emit("phase", phase="idle", batch_size=None)

    def save_cache(self, cmd: dict[str, Any], fault: Fault | None) -> None:
        self._trip(fault, None, cmd)
        Path(cmd["path"]).write_bytes(b"fake cache artifacts")
        self._emit("cache_saved", saved=True, path=cmd["path"], bytes=20, artifacts={"inductor": 1})

    def save_weights(self, cmd: dict[str, Any], fault: Fault | None) -> None:
        self._trip(fault, None, cmd)
        path = f"weights.{cmd['format']}"
        self._emit("artifact", kind="weights", path=path, format=cmd["format"], tensors=2)

    def accuracy(self, cmd: dict[str, Any], fault: Fault | None) -> None:
        self._require(self._config is not None, "accuracy before load")
        for bs in cmd["batch_sizes"]:
            self._emit("phase", phase="accuracy", batch_size=bs)
            self._trip(fault, bs, cmd)
            fault = None  # a fault strikes once
            self._emit("accuracy", batch_size=bs, **fake_events.ACCURACY_PASS)
        self._emit("phase", phase="idle", batch_size=None)

    def warm(self, cmd: dict[str, Any], fault: Fault | None) -> None:
        self._trip(fault, None, cmd)

    # -- event bodies ---------------------------------------------------------------------------
    def _steps(self, bs: int, n: int, phase: str, block: int | None = None) -> int:
        extra = {} if block is None else {"block": block}
        start = self._next_step
        factors = self.script.round_factors
        factor = factors[self.process % len(factors)] if factors else 1.0
        ms = [self.script.step_ms * factor] * n
        self._emit("steps", batch_size=bs, phase=phase, start=start, ms=ms, **extra)
        self._memory(bs, start + n - 1)
        self._next_step += n
        return n

    def _memory(self, bs: int, step: int) -> None:
        self._emit(
            "memory",
            batch_size=bs,
            step=step,
            rss_mb=100.0,
            cuda_alloc_mb=None,
            cuda_reserved_mb=None,
        )


_HANDLERS: dict[str, Callable[[FakeWorker, dict[str, Any], Fault | None], None]] = {
    "load": FakeWorker.load,
    "prepare": FakeWorker.prepare,
    "measure": FakeWorker.measure,
    "finish": FakeWorker.finish,
    "save_cache": FakeWorker.save_cache,
    "save_weights": FakeWorker.save_weights,
    "accuracy": FakeWorker.accuracy,
    "warm": FakeWorker.warm,
}
