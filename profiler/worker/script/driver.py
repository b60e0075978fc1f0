"""The schedule at a script's step boundaries: the same commands as a model file's worker
answers (prepare, measure, finish), answered from inside the script's optimizer step hook.

`prepare` starts the script (script_worker.py); its first step is timed alone (a compiled arm
compiles there), then the warm-up steps run, and `prepare` is done. From then on the script
pauses at each step boundary, reading the engine's next command while the other arms run:
`measure` lets it run one discarded step and then a block of timed steps, in the quiet room as
a model file's block (the other processes idle, the garbage collector collected, frozen and
off); `finish` reports the phase's peaks and compile counts; any other command ends the script
(ScriptStopped) and is answered after it has ended. Times and losses are read after the block.
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any, Protocol

import psutil
import torch

from tcprof.profiler.config import RunConfig
from tcprof.profiler.worker import distributed, quiet_room
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.memory import MemoryProbe
from tcprof.profiler.worker.script import alarm as script_alarm
from tcprof.profiler.worker.script.insight import BEFORE_TRAINING, Insight, seconds
from tcprof.profiler.worker.script.steps import StepMarks, StepTimes, StepTracker

WARMUP_FLUSH_S = 0.5  # warm-up steps are sent at least this often (the stall watch sees them)
BLOCK_FLUSH_S = 1.0  # a CPU block longer than this sends its steps so far (as model files do)


class Commands(Protocol):
    """What the driver needs of the command stream: the next command, and giving one back."""

    def next_command(self) -> dict[str, Any] | None: ...

    def push_back(self, command: dict[str, Any]) -> None: ...


def own_children() -> tuple[list[int], list[int]]:
    """(every descendant, the processes whose CPU time, with their descendants', is this
    block's own) of this worker: its DataLoader workers compute for it, so they are not peers
    a block waits for. A rank's own job is its launcher and the fellow ranks, which wait for it
    at every step: the launcher's tree stands for the whole job."""
    try:
        me = psutil.Process()
        below = [p.pid for p in me.children(recursive=True)]
        if distributed.is_rank():
            return [*below, *distributed.own_job_pids()], [os.getppid()]
        return below, [p.pid for p in me.children()]
    except psutil.Error:
        return [], []


class ScheduleDriver:
    def __init__(
        self,
        channel: EventChannel,
        commands: Commands,
        cfg: RunConfig,
        compiled: bool,
        batch_size: int,
        insight: Insight,
        threads: int | None,
    ) -> None:
        self.ch = channel
        self.commands = commands
        self.cfg = cfg
        self.compiled = compiled
        self.bs = batch_size
        self.insight = insight
        self.threads = threads
        self.tracker: StepTracker | None = None
        self.memory: MemoryProbe | None = None
        self.state = "first"
        self.owed: str | None = "prepare"  # the command whose `done` is still owed
        self.left = 0
        self.block = 0
        self.pending: list[StepMarks] = []
        self.flushed_at = time.monotonic()
        self.watch: quiet_room.BlockWatch | None = None
        self.gc_off = False
        self.quiet, self.waited_s = True, 0.0
        self.random_wait_s = 0.0
        self.last_loss: float | None = None
        self.steps_run = 0
        self.block_ran = 0

    # -- the tracker's callback -------------------------------------------------------------
    def on_step(self, marks: StepMarks) -> None:
        assert self.tracker is not None
        self.steps_run += 1
        state = self.state
        if state == "first":
            self._first(marks)
        elif state == "warmup":
            self.pending.append(marks)
            self.left -= 1
            if self.left == 0:
                self._flush("warmup")
                self._prepared()
            elif time.monotonic() - self.flushed_at >= WARMUP_FLUSH_S:
                self._flush("warmup")
                self.tracker.resume()
        elif state == "discard":
            self.state, self.pending = "measure", []
            gc.freeze()
            gc.disable()
            self.gc_off = True
            self.watch = quiet_room.BlockWatch(exclude=own_children()[1])
            self.tracker.resume()  # the block's first step starts after this
        elif state == "measure":
            self.pending.append(marks)
            self.left -= 1
            self.block_ran += 1
            if self.left == 0:
                self._end_block()
            elif self._cpu() and time.monotonic() - self.flushed_at >= BLOCK_FLUSH_S:
                self._flush("measure")
                self.tracker.resume()
        else:  # a step after the script was told to pause: cannot happen, stop it
            self.tracker.stop()

    def _cpu(self) -> bool:
        return self.tracker is not None and getattr(self.tracker.clock, "kind", "cpu") == "cpu"

    def _first(self, marks: StepMarks) -> None:
        assert self.tracker is not None
        script_alarm.cancel()
        cuda = torch.cuda.is_available() and torch.cuda.is_initialized()
        device = torch.device("cuda" if cuda else "cpu")  # the script's: it initialised CUDA
        self.insight.device_type = device.type
        self.memory = MemoryProbe(device)
        self.tracker.settle()
        times = self.tracker.read(marks)
        compiles = self.insight.take(self.bs, 0)
        before = [c for c in compiles if c.get("when") == BEFORE_TRAINING]
        before_s = sum(seconds(c) for c in before)
        self.ch.emit(
            "first_step",
            batch_size=self.bs,
            ms=round(times.compute_ms, 4),
            loss=times.loss,
            grad_norm=None,
            compile_s=sum(seconds(c) for c in compiles if c not in before),
            compiles=len(compiles) - len(before),
            compile_peak_mb=self.memory.peak_mb(),
            # start-up is the script's own: the compiles before its first step are not
            startup_s=round(max(0.0, (self.tracker.first_forward_s or 0.0) - before_s), 3),
            startup_compile_s=round(before_s, 4),
        )
        self.last_loss = times.loss
        self._memory(0)
        if self.cfg.warmup:
            self.state, self.left, self.pending = "warmup", self.cfg.warmup, []
            self.flushed_at = time.monotonic()
            self.ch.emit("phase", phase="warmup", batch_size=self.bs)
        else:
            self._prepared()
        self.tracker.resume()  # reading the first step was not the script's own time

    def _prepared(self) -> None:
        assert self.memory is not None
        self.insight.take(self.bs, self.steps_run)
        self.memory.reset_peaks()  # from here on, the steady peak
        self._done()
        self._await()

    # -- blocks -------------------------------------------------------------------------------
    def _start_block(self, cmd: dict[str, Any]) -> None:
        from tcprof.profiler.worker import arm_setup

        arm_setup.check_threads(self.threads)
        self.owed = "measure"
        self.block = int(cmd.get("block") or 0)
        self.left = int(cmd["steps"])
        self.block_ran = 0
        self.ch.emit("phase", phase="measuring", batch_size=self.bs)
        gc.collect()
        everyone, _ = own_children()
        self.quiet, self.waited_s = quiet_room.wait_for_quiet(
            [p for p in cmd.get("peers") or [] if p != os.getpid()], exclude=everyone
        )
        self.random_wait_s = float(cmd.get("wait_s") or 0.0)
        quiet_room.random_wait(self.random_wait_s)
        self.state = "discard"
        self.flushed_at = time.monotonic()

    def _end_block(self) -> None:
        self._gc_on()
        assert self.watch is not None
        elsewhere, contended = self.watch.read()
        ran = self.block_ran
        self._flush("measure")
        self._memory(self.steps_run - 1)
        self.insight.take(self.bs, self.steps_run)
        self.ch.emit(
            "block_done",
            batch_size=self.bs,
            block=self.block,
            steps=ran,
            quiet=self.quiet,
            waited_s=round(self.waited_s, 3),
            random_wait_s=round(self.random_wait_s, 4),
            busy_elsewhere=round(elsewhere, 3),
            contended=contended,
        )
        self._done()
        self._await()

    def _flush(self, phase: str) -> None:
        """Send the pending steps: compute time, the script's own time, loss."""
        assert self.tracker is not None
        if not self.pending:
            return
        self.tracker.settle()
        times: list[StepTimes] = [self.tracker.read(m) for m in self.pending]
        extra = {"block": self.block} if phase == "measure" else {}
        self.ch.emit(
            "steps",
            batch_size=self.bs,
            phase=phase,
            start=self.pending[0].index,
            ms=[round(t.compute_ms, 5) for t in times],
            own_ms=[None if t.own_ms is None else round(t.own_ms, 5) for t in times],
            loss=[t.loss for t in times],
            samples=[m.work.samples for m in self.pending],
            tokens=[m.work.tokens for m in self.pending],
            **extra,
        )
        if times[-1].loss is not None:
            self.last_loss = times[-1].loss
        self.tracker.release(self.pending)
        self.pending = []
        self.flushed_at = time.monotonic()

    # -- between blocks: the engine's next command ------------------------------------------
    def _await(self) -> None:
        """Paused at a step boundary: answer `measure` (resume) and `finish`; any other
        command ends the script, to be answered once it has ended."""
        assert self.tracker is not None
        self.state = "idle"
        while True:
            cmd = self.commands.next_command()
            if cmd is None:  # the engine is gone
                self.tracker.stop()
            assert cmd is not None
            name, bs = cmd.get("cmd"), cmd.get("batch_size")
            if name == "measure" and bs == self.bs and "steps" in cmd:
                self._start_block(cmd)
                self.tracker.resume()
                return
            if name == "finish" and bs == self.bs:
                self._finish()
                continue
            self.commands.push_back(cmd)
            self.tracker.stop()

    def _finish(self) -> None:
        assert self.memory is not None
        self.insight.take(self.bs, self.steps_run)
        self.ch.emit(
            "bs_done",
            batch_size=self.bs,
            last_loss=self.last_loss,
            **self.insight.counts(),
            **self.memory.peaks(),
        )
        self.ch.emit("phase", phase="idle", batch_size=None)
        self.ch.emit("done", cmd="finish")

    # -- helpers ------------------------------------------------------------------------------
    def _done(self) -> None:
        if self.owed is not None:
            self.ch.emit("done", cmd=self.owed)
            self.owed = None

    def _memory(self, step: int) -> None:
        if self.memory is not None:
            self.ch.emit("memory", batch_size=self.bs, step=step, **self.memory.sample())

    def _gc_on(self) -> None:
        if self.gc_off:
            gc.enable()
            gc.unfreeze()
            self.gc_off = False

    def abort(self) -> None:
        """The script ended while a block ran: the collector back on."""
        self._gc_on()
