"""The untimed passes of an arm's worker: nothing here runs while a block is timed.

Training memory on CPU (one step under torch.profiler), a CUDA memory snapshot, the
torch.profiler pass, portable compile-cache artifacts, the accuracy check (in a process of its
own) and the trained weights. A mixin of ArmWorker: it uses the worker's model, optimizer,
batches, step and channel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import torch

from tcprof.profiler.config import ArmSpec, RunConfig
from tcprof.profiler.worker import compile_cache, errors, inputs
from tcprof.profiler.worker.arm_setup import make_optimizer as make_arm_optimizer
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.errors import StepFailed

if TYPE_CHECKING:
    from tcprof.profiler.worker.step_loop import StepLoop

SNAPSHOT_STEPS = 2
FSDP_ON_CPU = (
    "an FSDP rank on CPU is not profiled (torch.profiler around gloo's parameter gathers "
    "corrupts the heap now and then)"
)


class UntimedPasses:
    # What the passes use of ArmWorker's state (set by its __init__ and load).
    ch: EventChannel
    cfg: RunConfig | None
    arm: ArmSpec | None
    loop: StepLoop | None
    batches: list[inputs.Batch]
    next_step: int
    artifacts: Path | None  # the arm's folder in the session (None: no session folder)
    data_seed: int
    parallel: dict[str, Any] | None
    device: torch.device
    module: ModuleType
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    plan: inputs.InputPlan
    user_file: str

    if TYPE_CHECKING:  # ArmWorker's

        def _step(self, batch: inputs.Batch) -> Any: ...

        def _take_insight(self, batch_size: int, step: int) -> list[dict[str, Any]]: ...

    def _steady_memory(self, peaks: dict[str, float | None]) -> dict[str, Any]:
        """The training step's steady peak: CUDA's max allocated over the measured steps; on
        CPU the peak of live tensor memory of one untimed step under torch.profiler (RSS after
        warm-up says nothing: the allocator reuses its blocks)."""
        if self.device.type == "cuda":
            return {
                "steady_peak_mb": peaks.get("peak_cuda_mb"),
                "steady_method": "cuda_max_allocated",
            }
        from tcprof.profiler.worker.training_memory import training_step_memory

        collectives = self._profiled_step_without_collectives()
        if collectives is None:
            return {"steady_peak_mb": None, "steady_method": f"unavailable: {FSDP_ON_CPU}"}
        batch = self.batches[self.next_step % len(self.batches)]
        inference = self.cfg is not None and self.cfg.loop == "inference"
        # an inference loop's steady peak is one forward's: no gradients, no optimizer state
        alive = (
            [self.model, *self.batches]
            if inference
            else [self.model, self.optimizer, *self.batches]
        )
        try:
            with collectives:
                info = training_step_memory(
                    self._step, batch, alive, what="inference forward" if inference else None
                )
        except Exception as exc:  # the figure is optional; the run is not
            return {"steady_peak_mb": None, "steady_method": f"unavailable: {exc}"}
        self.next_step += 1
        return {"steady_peak_mb": info["steady_peak_mb"], "steady_method": info["method"]}

    def _profiled_step_without_collectives(self) -> AbstractContextManager[Any] | None:
        """torch.profiler around gloo's collectives corrupts the heap now and then (a rank died
        of SIGABRT, "malloc(): unsorted double linked list corrupted", in 1 of 7 two-rank runs
        of 40 profiled DDP steps; docs/benchmarks.md): a DDP rank's profiled step skips its
        gradient all-reduce (`no_sync`: the memory figure moved by under 0.1%); FSDP gathers
        its parameters in every forward, so a CPU FSDP rank has no profiled step (None)."""
        if not self.parallel:
            return nullcontext()
        from torch.nn.parallel import DistributedDataParallel

        for candidate in (self.model, getattr(self.model, "_orig_mod", None)):
            if isinstance(candidate, DistributedDataParallel):
                return candidate.no_sync()
        return None

    def _memory_snapshot(self, batch_size: int) -> None:
        """A CUDA allocation history of a few untimed steps, never recorded during timing."""
        if self.device.type != "cuda" or self.artifacts is None or not self.batches:
            return
        self.artifacts.mkdir(parents=True, exist_ok=True)
        path = self.artifacts / f"memory-snapshot-bs{batch_size}.pickle"
        torch.cuda.memory._record_memory_history(max_entries=200_000)
        try:
            for i in range(SNAPSHOT_STEPS):
                self._step(self.batches[(self.next_step + i) % len(self.batches)])
            torch.cuda.memory._dump_snapshot(str(path))
        finally:
            torch.cuda.memory._record_memory_history(enabled=None)
        self.next_step += SNAPSHOT_STEPS
        self.ch.emit("artifact", kind="memory_snapshot", batch_size=batch_size, path=str(path))

    def save_cache(self, path: str) -> None:
        """Portable cache artifacts of what this process compiled (after a cold round)."""
        self.ch.emit("cache_saved", **compile_cache.save_artifacts(path))

    def check_accuracy(self, batch_sizes: list[int]) -> None:
        """The untimed accuracy check, in a process of its own (see accuracy.py): two steps
        of the arm's own loop kind, with its mode, autocast dtype, memory format, optimizer
        (its learning rate) and optimizer step; for a distributed arm on every rank, wrapped
        as the arm is (see rank_accuracy.py)."""
        from tcprof.profiler.worker import arm_setup
        from tcprof.profiler.worker.accuracy import check_step
        from tcprof.profiler.worker.blocks import find_repeated_blocks

        cfg, arm, loop = self.cfg, self.arm, self.loop
        assert cfg is not None and arm is not None and loop is not None
        options = {k: v for k, v in arm.options().items() if v not in (None, "default")}
        model, data_seed, combine = self.model, cfg.seed, None
        sync_grads = sync_buffers = None
        if self.parallel:  # the worker's model is wrapped: check a fresh, plain one
            from tcprof.profiler.worker import distributed, rank_accuracy

            model = arm_setup.build_model(cfg, self.device, self.user_file).model
            data_seed, sync_grads = self.data_seed, rank_accuracy.average_grads
            if cfg.parallel_of(arm) == "ddp":  # DDP takes rank 0's buffers before each forward
                sync_buffers = rank_accuracy.broadcast_buffers
            combine = rank_accuracy.combine

        def compile_fn(module: torch.nn.Module) -> Callable[..., Any]:
            if self.parallel:
                module, _ = distributed.wrap(module, cfg.parallel_of(arm), cfg.block_module)
            if arm.regional:  # compiled as the arm was: each repeated block, in place
                for block in find_repeated_blocks(module, cfg.block_module).modules:
                    block.compile(backend=arm.torch_backend, **options)
                return module
            return torch.compile(module, backend=arm.torch_backend, **options)

        def compile_optimizer_fn(opt_step: Callable[[], None]) -> Callable[[], None]:
            return torch.compile(opt_step, backend=arm.torch_backend, fullgraph=False)

        def make_optimizer(params: Iterator[torch.nn.Parameter]) -> torch.optim.Optimizer:
            return make_arm_optimizer(cfg.optimizer, params, cfg.lr)

        for bs in batch_sizes:
            self.ch.emit("phase", phase="accuracy", batch_size=bs)
            try:
                batches = inputs.make_batches(
                    self.plan, model, self.module, bs, self.device, data_seed, 1
                )
                if cfg.channels_last:
                    inputs.to_channels_last(batches)
                result = check_step(
                    model,
                    batches[0],
                    inputs.LossOf(cfg.seed),
                    compile_fn,
                    seed=cfg.seed + bs,
                    rtol=cfg.accuracy_rtol,
                    atol=cfg.accuracy_atol,
                    loop=cfg.loop,
                    amp=loop.amp_dtype,
                    make_optimizer=make_optimizer if cfg.loop == "train" else None,
                    compile_optimizer=compile_optimizer_fn if loop.optimizer_compiled else None,
                    sync_grads=sync_grads,
                    sync_buffers=sync_buffers,
                )
            except Exception as exc:
                result = {
                    "status": "skipped",
                    "worst": None,
                    "reason": f"the check could not run: {type(exc).__name__}: {exc}",
                }
            if combine is not None:
                result = combine(result)
            self.ch.emit("accuracy", batch_size=bs, **result)
        self.ch.emit("phase", phase="idle", batch_size=None)

    def _profile(self, batch_size: int, steps: int, peers: list[int] | None = None) -> None:
        """The torch.profiler pass, in the quiet room like a timed block (a busy neighbour
        stretched a profiled step 24 times over the measured one), with its own wall time per
        step so the engine can tell whether it describes the measured step."""
        from tcprof.profiler.worker import quiet_room
        from tcprof.profiler.worker.op_profile import profile_steps

        assert self.artifacts is not None  # finish() profiles only into a session folder
        self.ch.emit("phase", phase="profiling", batch_size=batch_size)
        path = self.artifacts / f"torch-profiler-bs{batch_size}.json"
        quiet, _waited = quiet_room.wait_for_quiet(peers or [])
        try:
            ops, step_ms = profile_steps(self._step, self.batches, steps, self.device, path)
        except Exception as exc:
            self.ch.emit(
                "log",
                stream="tcprof",
                text=f"torch.profiler pass failed: {type(exc).__name__}: {exc}",
            )
            return
        self._take_insight(batch_size, self.next_step)
        self.ch.emit(
            "profile",
            batch_size=batch_size,
            steps=steps,
            path=str(path),
            top_ops=ops,
            step_ms=round(step_ms, 6),
            quiet=quiet,
        )
        self.ch.emit("artifact", kind="torch_profiler_trace", batch_size=batch_size, path=str(path))

    def save_weights(self, fmt: str) -> None:
        from tcprof.profiler.worker.weights import save_weights

        cfg = self.cfg
        assert cfg is not None and self.artifacts is not None
        path = self.artifacts / f"weights.{fmt}"
        try:
            info = save_weights(
                self.model, self.module, cfg.source.model, cfg.source.factory, path, fmt
            )
        except Exception as exc:
            raise StepFailed(
                {
                    **errors.describe(exc, "runtime", False, self.user_file),
                    "kind": "weights",
                    "fatal": False,
                }
            ) from exc
        self.ch.emit("artifact", kind="weights", **info)
