"""One arm inside its worker process: load the model, build the arm, run steps on command.

The engine drives it one command at a time (load, prepare, measure, finish), which is how arms
in separate processes take turns in interleaved blocks.
"""

from __future__ import annotations

import gc
from typing import Any

import torch

from tcprof.profiler.config import ArmSpec, RunConfig, arm_artifacts_dir
from tcprof.profiler.worker import (
    arm_setup,
    cpu_check,
    distributed,
    environment,
    errors,
    inputs,
    machine_speed,
    model_source,
    quiet_room,
    step_loop,
    timed_loop,
)
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.errors import StepFailed
from tcprof.profiler.worker.memory import MemoryProbe
from tcprof.profiler.worker.untimed import UntimedPasses

BATCHES_PER_SIZE = 4
MEASURE_FLUSH_NS = 1_000_000_000  # during a timed block, events wait (at most 1 s) for its end
# A CUDA block hands on its finished steps early only when it outlasts this share of the stall
# timeout (and at least MEASURE_FLUSH_NS), so the stall watch, which needs events, sees progress.
CUDA_PROGRESS_SHARE = 0.25


class ArmWorker(UntimedPasses):
    def __init__(self, channel: EventChannel) -> None:
        self.ch = channel
        self.cfg: RunConfig | None = None
        self.arm: ArmSpec | None = None
        self.batches: list[inputs.Batch] = []
        self.next_step = 0
        self.last_result: Any = None  # the last step's loss (train) or output (inference)
        self.last_batch: inputs.Batch | None = None  # the batch it came from
        self.loop: step_loop.StepLoop | None = None
        self.warned_channels_last = False
        self.watcher: Any = None  # a CompileWatcher for compiled arms
        self.bs_compiles: list[dict[str, Any]] = []
        self.bs_graph_breaks: list[dict[str, Any]] = []
        self.bs_fallbacks: list[dict[str, Any]] = []
        self.explained = False
        self.stance_set = False
        self.artifacts = None
        self.data_seed = 0  # the run's seed; plus the rank in a distributed arm (its own data)
        self.parallel: dict[str, Any] | None = None  # a distributed arm's wrapping
        self.threads: int | None = None  # torch's threads in this process, as `load` said
        self.cuda_ring = timed_loop.CudaEventRing()  # CUDA step timing; no events until used

    # -- commands ---------------------------------------------------------------------------
    def load(
        self,
        config: dict[str, Any],
        arm_index: int,
        cache_dir: str | None = None,
        cache_artifacts: str | None = None,
        threads: int | None = None,
        cpu_check_dir: str | None = None,
    ) -> None:
        """cache_dir: this arm's own compile-cache folder (None: the user's caches);
        cache_artifacts: portable cache artifacts saved earlier in this run, loaded first;
        threads: torch.set_num_threads in this process, as the engine computed it (a rank's
        share of the host's cores; None: torch's default); cpu_check_dir: where inductor's
        once-per-machine CPU check keeps its libraries (cpu_check.py), run before compiling."""
        cfg = RunConfig.from_dict(config)
        arm = self.arm = cfg.run_arms[arm_index]
        ranked = distributed.is_rank()
        self.cfg = cfg
        self.threads = threads
        self.data_seed = cfg.seed + (distributed.rank() if ranked else 0)
        if threads:
            torch.set_num_threads(threads)
        device_name = environment.resolve_device(cfg.device)
        self.ch.emit("hello", **environment.describe(device_name, with_backends=arm.compiled))
        self.ch.emit("phase", phase="loading", batch_size=None)
        arm_setup.check_device(device_name)
        if ranked:
            device_name = distributed.init_process_group(device_name)
        self.device = torch.device(device_name)
        self.user_file = str(cfg.source.path)
        built = arm_setup.build_model(cfg, self.device, self.user_file)
        if arm.compiled:  # after the model file: it may register a backend of its own
            arm_setup.check_backend(arm)
        self.module, self.model, self.plan = built.module, built.model, built.plan
        if ranked:
            self.model, self.parallel = arm_setup.wrap_parallel(
                self.model, cfg.parallel_of(arm), cfg.block_module
            )
        self.artifacts = arm_artifacts_dir(cfg, arm_index)
        arm_setup.check_threads(self.threads)
        self.optimizer = arm_setup.make_optimizer(cfg.optimizer, self.model.parameters(), cfg.lr)
        self.loss_of = inputs.LossOf(cfg.seed)
        self.memory = MemoryProbe(self.device)
        regional, checked = None, None
        if arm.compiled and cpu_check.wanted(
            arm.torch_backend, self.device.type, cache_dir, cpu_check_dir
        ):
            assert cache_dir is not None and cpu_check_dir is not None
            checked = cpu_check.run(cpu_check_dir, cache_dir)
        if arm.compiled:
            self.runner, self.watcher, regional = arm_setup.compile_model(
                self.model, arm, cfg, self.user_file, self.ch, cache_dir, cache_artifacts
            )
        else:
            self.runner = self.model
        self.loop = step_loop.StepLoop(
            cfg,
            arm,
            self.model,
            self.runner,
            self.optimizer,
            self.loss_of,
            self.device,
            built.channels_last_params,
        )
        self.ch.emit(
            "loaded",
            model=built.how,
            params=model_source.count_parameters(self.model),
            input=self.plan.describe(),
            input_source=self.plan.source,
            cache_dir=cache_dir if arm.compiled else None,
            threads=torch.get_num_threads(),
            weights=built.weights,
            regional=regional,
            parallel=self.parallel,
            loop=self.loop.describe(),
            candidates=[c.to_dict() for c in model_source.list_candidates(self.module)],
            **({"cpu_check": checked} if checked else {}),
        )

    def prepare(self, batch_size: int) -> None:
        """Generate batches, time the first (compiling) step alone, then the warm-up steps."""
        cfg = self.cfg
        assert cfg is not None and self.arm is not None
        self.bs_compiles, self.bs_graph_breaks, self.bs_fallbacks = [], [], []
        self.batches = self._make_batches(batch_size)
        if self.arm.mark_dynamic is not None:  # the applied advice: no recompile per size
            inputs.mark_dynamic(self.batches, self.arm.mark_dynamic)
        if self.arm.compiled and cfg.debug.explain and not self.explained:
            self.explained = True
            self._explain(batch_size)
        torch.manual_seed(cfg.seed + batch_size)  # same dropout stream in every arm
        self.ch.emit(
            "phase", phase="compiling" if self.arm.compiled else "first_step", batch_size=batch_size
        )
        self.memory.reset_peaks()  # the first step's peak is the compile peak
        try:
            ms, loss, grad_norm = self._first_step(batch_size)
        except StepFailed:
            self._release_batch_size()  # after an OOM the next (smaller) batch size must fit
            raise
        if self.arm.compiled and cfg.debug.fail_on_recompile and not self.stance_set:
            self.stance_set = True  # after the first compile, which the stance would refuse too
            torch.compiler.set_stance("fail_on_recompile")
        compiles = self._take_insight(batch_size, step=0)
        self.ch.emit(
            "first_step",
            batch_size=batch_size,
            ms=ms,
            loss=loss,
            grad_norm=grad_norm,
            compile_s=sum(c["seconds"] or 0 for c in compiles),
            compiles=len(compiles),
            compile_peak_mb=self.memory.peak_mb(),
        )
        self._sample_memory(batch_size, 0)
        self.next_step = 1
        if cfg.warmup:
            self.ch.emit("phase", phase="warmup", batch_size=batch_size)
            self._run(batch_size, cfg.warmup, "warmup")
        self.memory.reset_peaks()  # from here on, the steady training peak

    def _make_batches(self, batch_size: int) -> list[inputs.Batch]:
        """A few batches, generated on the device before anything is timed, cycled by steps."""
        cfg = self.cfg
        assert cfg is not None
        count = max(1, min(BATCHES_PER_SIZE, cfg.steps + cfg.warmup + 1))
        try:
            batches = inputs.make_batches(
                self.plan, self.model, self.module, batch_size, self.device, self.data_seed, count
            )
            if cfg.channels_last:
                self._warn_unless_converted(inputs.to_channels_last(batches))
            return batches
        except inputs.InputError as exc:
            raise StepFailed(errors.simple_error("load", str(exc), batch_size)) from exc
        except Exception as exc:
            raise StepFailed(
                errors.describe(exc, "load", False, self.user_file, batch_size)
            ) from exc

    def _warn_unless_converted(self, converted: int) -> None:
        if converted or self.warned_channels_last:
            return
        self.warned_channels_last = True
        self.ch.emit(
            "log",
            stream="tcprof",
            text="warning: --channels-last: no input is a 4-D tensor, so the inputs stay as "
            "they are (channels_last applies to 4-D NCHW tensors); the model's 4-D parameters "
            f"were converted ({self.loop.channels_last_params if self.loop else 0} of them)",
        )

    def measure(
        self,
        batch_size: int,
        steps: int,
        block: int = 0,
        peers: list[int] | None = None,
        wait_s: float | None = None,
    ) -> None:
        """One timed block, in a quiet room: the other processes of the run idle, the engine's
        random wait (untimed), the garbage collector collected, frozen and off, and one
        discarded step first (after a pipe round trip and a context switch the first step is
        not representative). The heap stays frozen from one block to the next (`finish`
        thaws it): each block's collection then walks only what was made since the last one,
        not the whole heap of torch and TorchDynamo again (0.15-0.25 s a block on a quiet
        machine; the block itself runs as before, collector off)."""
        cfg = self.cfg
        assert cfg is not None
        arm_setup.check_threads(self.threads)
        self.ch.emit("phase", phase="measuring", batch_size=batch_size)
        # the machine's speed before the block, read ahead of the quiet room's and the random
        # waits: read right before the discarded step, it moved the known truth's speedup by
        # about 2% (docs/benchmarks.md, "The machine's speed probe against the known truth")
        speed_before = machine_speed.reference_us()
        gc.collect()
        own_job = distributed.own_job_pids() if self.parallel else ()
        quiet, waited_s = quiet_room.wait_for_quiet(peers or [], exclude=own_job)
        quiet_room.random_wait(wait_s)
        self._run(batch_size, 1, "discard")
        gc.freeze()
        gc.disable()
        watch = quiet_room.BlockWatch(exclude=own_job)
        try:
            ran = self._run(
                batch_size,
                steps,
                "measure",
                block=block,
                # ranks must run the same steps (each waits for the others at every step)
                min_ns=0 if self.parallel else int(cfg.min_block_ms * 1e6),
                flush_ns=MEASURE_FLUSH_NS,
            )
        except BaseException:
            gc.unfreeze()  # no more blocks of this batch size
            raise
        finally:
            gc.enable()
        elsewhere, contended = watch.read()
        speed_after = machine_speed.reference_us()
        self.ch.emit(
            "block_done",
            batch_size=batch_size,
            block=block,
            steps=ran,
            quiet=quiet,
            waited_s=round(waited_s, 3),
            random_wait_s=round(float(wait_s or 0.0), 4),
            busy_elsewhere=round(elsewhere, 3),
            contended=contended,
            reference_us=round(speed_before, 1),
            reference_after_us=round(speed_after, 1),
        )

    def finish(self, batch_size: int, detail: bool = True, peers: list[int] | None = None) -> None:
        """After a batch size's blocks: its peaks and insight; with `detail` (one round per
        run), the untimed extras: training memory on CPU, the profiler pass, a CUDA snapshot."""
        gc.unfreeze()  # frozen since the first block (measure): the untimed passes collect as usual
        self._take_insight(batch_size, self.next_step)
        peaks = self.memory.peaks()  # before any untimed extra step
        steady = self._steady_memory(peaks) if detail else {}
        if detail and self.cfg and self.cfg.profile_steps and self.artifacts is not None:
            self._profile(batch_size, self.cfg.profile_steps, peers)
        last = self.loop.loss_value(self.last_result, self.last_batch) if self.loop else None
        self.ch.emit(
            "bs_done",
            batch_size=batch_size,
            last_loss=last,
            graphs=sum(1 for c in self.bs_compiles if c["kind"] == "first"),
            recompiles=sum(1 for c in self.bs_compiles if c["kind"] == "recompile"),
            graph_breaks=len(self.bs_graph_breaks),
            fell_back=bool(self.bs_fallbacks),
            dynamo_compile_s=sum(c["seconds"] or 0 for c in self.bs_compiles),
            **peaks,
            **steady,
        )
        if detail and self.cfg and self.cfg.debug.memory_snapshot:
            self._memory_snapshot(batch_size)
        self.batches = []
        self.ch.emit("phase", phase="idle", batch_size=None)
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    # -- steps ------------------------------------------------------------------------------
    def _step(self, batch: inputs.Batch) -> Any:
        """One step of the arm's loop kind (untimed passes; the timed loop calls it direct)."""
        assert self.loop is not None
        return self.loop.step(batch)

    def _explain(self, batch_size: int) -> None:
        from tcprof.profiler.worker.explain_pass import explain_pass

        assert self.loop is not None
        self.ch.emit("phase", phase="explain", batch_size=batch_size)
        with self.loop.forward_mode():  # the graphs the loop's own forward makes
            explain_pass(
                self.ch, self.model, self.optimizer, self.batches[0], batch_size, self.watcher
            )

    def _release_batch_size(self) -> None:
        self.batches = []
        self.last_result = self.last_batch = None
        self.optimizer.zero_grad(set_to_none=True)
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        elif self.device.type == "mps":
            torch.mps.synchronize()

    def _first_step(self, batch_size: int) -> tuple[float, float | None, float | None]:
        """Timed alone and in stages (see StepLoop.first_step), so an error names its stage."""
        assert self.loop is not None
        batch = self.batches[0]
        try:
            ms, loss, grad_norm, result = self.loop.first_step(batch, self._sync)
        except inputs.InputError as exc:
            raise StepFailed(errors.simple_error("loss", str(exc), batch_size)) from exc
        except Exception as exc:
            self._take_insight(batch_size, step=0)
            compiled = bool(self.arm and self.arm.compiled)
            raise StepFailed(
                errors.describe(exc, self.loop.stage, compiled, self.user_file, batch_size)
            ) from exc
        self.last_result, self.last_batch = result, batch
        return ms, loss, grad_norm

    def _run(
        self,
        batch_size: int,
        n: int,
        phase: str,
        block: int | None = None,
        min_ns: int = 0,
        flush_ns: int = timed_loop.FLUSH_NS,
    ) -> int:
        """Run n steps (at least min_ns long); a 'discard' phase reports nothing."""
        watch = self.watcher is not None
        report = phase != "discard"

        def flush(start: int, ms: list[float]) -> None:
            if report:
                extra = {} if block is None else {"block": block}
                self.ch.emit(
                    "steps", batch_size=batch_size, phase=phase, start=start, ms=ms, **extra
                )
                self._sample_memory(batch_size, start + len(ms) - 1)
            if watch:
                self._take_insight(batch_size, start)

        sync = torch.mps.synchronize if self.device.type == "mps" else None
        assert self.loop is not None
        try:
            if self.device.type == "cuda":
                result, ran = self.cuda_ring.run(
                    self.loop.step,
                    self.batches,
                    n,
                    self.next_step,
                    flush,
                    min_ns=min_ns,
                    progress_ns=self._cuda_progress_ns(),
                )
            else:
                result, ran = timed_loop.run_cpu(
                    self.loop.step,
                    self.batches,
                    n,
                    self.next_step,
                    flush,
                    min_ns=min_ns,
                    flush_ns=flush_ns,
                    sync=sync,
                )
        except Exception as exc:
            self._take_insight(batch_size, self.next_step)
            event = errors.describe(
                exc, "runtime", bool(self.arm and self.arm.compiled), self.user_file, batch_size
            )
            self._release_batch_size()
            raise StepFailed(event) from exc
        if self.device.type == "cuda" and self.cuda_ring.overflow and report:
            self.ch.emit(
                "log",
                stream="tcprof",
                text=f"note: CUDA timing: a {phase} block at batch size {batch_size} ran {ran} "
                f"steps, {self.cuda_ring.overflow} more than its ring of timing events held; "
                "the extra events were made without synchronising (the times stand), and the "
                f"ring now holds {self.cuda_ring.size} steps",
            )
        self.last_batch = self.batches[(self.next_step + ran - 1) % len(self.batches)]
        self.next_step += ran
        self.last_result = result
        return ran

    def _cuda_progress_ns(self) -> int | None:
        """How long a CUDA block runs before it hands on its finished steps (None: never, as
        without a stall timeout); far longer than a usual block, so blocks send nothing."""
        stall_s = self.cfg.stall_timeout_s if self.cfg else None
        if not stall_s:
            return None
        return max(MEASURE_FLUSH_NS, int(stall_s * CUDA_PROGRESS_SHARE * 1e9))

    # -- insight and memory -------------------------------------------------------------------
    def _take_insight(self, batch_size: int, step: int) -> list[dict[str, Any]]:
        if self.watcher is None:
            return []
        compiles: list[dict[str, Any]] = self.watcher.take_compiles()
        for c in compiles:
            self.ch.emit("compile", batch_size=batch_size, step=step, **c)
        self.bs_compiles.extend(compiles)
        for gb in self.watcher.take_graph_breaks():
            self.ch.emit("graph_break", batch_size=batch_size, step=step, **gb)
            self.bs_graph_breaks.append(gb)
        for fb in self.watcher.take_fallbacks():
            self.ch.emit("fallback", batch_size=batch_size, step=step, **fb)
            self.bs_fallbacks.append(fb)
        for skip in self.watcher.take_cudagraph_skips(self.device.type):
            self.ch.emit("cudagraph_skip", batch_size=batch_size, step=step, **skip)
        for log in self.watcher.take_artifact_logs():
            self.ch.emit("log", stream="torch", **log)
        return compiles

    def _sample_memory(self, batch_size: int, step: int) -> None:
        self.ch.emit("memory", batch_size=batch_size, step=step, **self.memory.sample())
