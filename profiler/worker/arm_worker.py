"""One arm inside its worker process: load the model, build the arm, run steps on command.

The engine drives it one command at a time (load, prepare, measure, finish), which is how arms
in separate processes take turns in interleaved blocks.
"""

from __future__ import annotations

import gc
import math
import time
from typing import Any

import torch

from profiler.config import ArmSpec, RunConfig, arm_artifacts_dir
from profiler.worker import (
    compile_cache,
    environment,
    errors,
    inputs,
    model_source,
    quiet_room,
    timed_loop,
)
from profiler.worker.channel import EventChannel
from profiler.worker.memory import MemoryProbe
from profiler.worker.untimed import StepFailed, UntimedPasses

BATCHES_PER_SIZE = 4
MEASURE_FLUSH_NS = 1_000_000_000  # during a timed block, events wait (at most 1 s) for its end


def _optimizer(name: str, params, lr: float) -> torch.optim.Optimizer:
    if name == "adam":
        return torch.optim.Adam(params, lr=lr)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=lr)
    return torch.optim.SGD(params, lr=lr)


class ArmWorker(UntimedPasses):
    def __init__(self, channel: EventChannel) -> None:
        self.ch = channel
        self.cfg: RunConfig | None = None
        self.arm: ArmSpec | None = None
        self.batches: list[inputs.Batch] = []
        self.next_step = 0
        self.last_loss: torch.Tensor | None = None
        self.watcher: Any = None  # a CompileWatcher for compiled arms
        self.bs_compiles: list[dict[str, Any]] = []
        self.bs_graph_breaks: list[dict[str, Any]] = []
        self.bs_fallbacks: list[dict[str, Any]] = []
        self.explained = False
        self.stance_set = False
        self.artifacts = None

    # -- commands ---------------------------------------------------------------------------
    def load(
        self,
        config: dict[str, Any],
        arm_index: int,
        cache_dir: str | None = None,
        cache_artifacts: str | None = None,
    ) -> None:
        """cache_dir: this arm's own compile-cache folder (None: the user's caches);
        cache_artifacts: portable cache artifacts saved earlier in this run, loaded first."""
        cfg = self.cfg = RunConfig.from_dict(config)
        arm = self.arm = cfg.run_arms[arm_index]
        if cfg.threads:
            torch.set_num_threads(cfg.threads)
        device_name = environment.resolve_device(cfg.device)
        self.ch.emit("hello", **environment.describe(device_name, with_backends=arm.compiled))
        self.ch.emit("phase", phase="loading", batch_size=None)
        if device_name == "cuda" and not torch.cuda.is_available():
            raise StepFailed(
                self._usage("device 'cuda' was asked for, but this torch build sees no CUDA device")
            )
        if device_name == "mps" and not torch.backends.mps.is_available():
            raise StepFailed(self._usage("device 'mps' was asked for, but it is not available"))
        if arm.compiled:
            from torch import _dynamo  # only compiled arms pay for importing TorchDynamo

            known = _dynamo.list_backends(exclude_tags=())
            if arm.torch_backend not in known:
                raise StepFailed(
                    self._usage(
                        f"unknown torch.compile backend {arm.backend!r}; available: {', '.join(sorted(known))}"
                    )
                )
        self.device = torch.device(device_name)
        self.user_file = str(cfg.source.path)
        try:
            module = self.module = model_source.import_file(cfg.source.path)
            torch.manual_seed(cfg.seed)  # identical initial weights in every arm
            model, how = model_source.build_model(module, cfg.source.model, cfg.source.factory)
            model = self.model = model.to(self.device).train()
            self.plan = inputs.plan_inputs(model, module, cfg.source.input_shape)
        except model_source.ModelLoadError as exc:
            raise StepFailed(self._error_from_load(exc)) from exc
        except inputs.InputError as exc:
            raise StepFailed(self._simple_error("load", str(exc))) from exc
        except Exception as exc:
            raise StepFailed(errors.describe(exc, "load", False, self.user_file)) from exc
        self.artifacts = arm_artifacts_dir(cfg, arm_index)
        self._check_threads()
        self.optimizer = _optimizer(cfg.optimizer, model.parameters(), cfg.lr)
        self.loss_of = inputs.LossOf(cfg.seed)
        self.memory = MemoryProbe(self.device)
        if arm.compiled:
            from profiler.worker.dynamo_insight import CompileWatcher

            if cache_dir:
                compile_cache.use_cache_dir(cache_dir)
            if cache_artifacts:
                self.ch.emit("cache_loaded", **compile_cache.load_artifacts(cache_artifacts))
            self.watcher = CompileWatcher(cfg.debug, self.user_file)
            options = {k: v for k, v in arm.options().items() if v is not None}
            if options.get("mode") == "default":
                options.pop("mode")
            self.runner = torch.compile(model, backend=arm.torch_backend, **options)
        else:
            self.runner = model
        self.ch.emit(
            "loaded",
            model=how,
            params=model_source.count_parameters(model),
            input=self.plan.describe(),
            input_source=self.plan.source,
            cache_dir=cache_dir if arm.compiled else None,
            threads=torch.get_num_threads(),
            candidates=[c.to_dict() for c in model_source.list_candidates(module)],
        )

    def prepare(self, batch_size: int) -> None:
        """Generate batches, time the first (compiling) step alone, then the warm-up steps."""
        cfg = self.cfg
        assert cfg is not None and self.arm is not None
        self.bs_compiles, self.bs_graph_breaks, self.bs_fallbacks = [], [], []
        count = max(1, min(BATCHES_PER_SIZE, cfg.steps + cfg.warmup + 1))
        try:
            self.batches = inputs.make_batches(
                self.plan, self.model, self.module, batch_size, self.device, cfg.seed, count
            )
        except inputs.InputError as exc:
            raise StepFailed(self._simple_error("load", str(exc), batch_size)) from exc
        except Exception as exc:
            raise StepFailed(
                errors.describe(exc, "load", False, self.user_file, batch_size)
            ) from exc
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

    def measure(
        self, batch_size: int, steps: int, block: int = 0, peers: list[int] | None = None
    ) -> None:
        """One timed block, in a quiet room: the other processes of the run idle, the garbage
        collector collected, frozen and off, and one discarded step first (after a pipe round
        trip and a context switch the first step is not representative)."""
        cfg = self.cfg
        assert cfg is not None
        self._check_threads()
        self.ch.emit("phase", phase="measuring", batch_size=batch_size)
        gc.collect()
        quiet, waited_s = quiet_room.wait_for_quiet(peers or [])
        self._run(batch_size, 1, "discard")
        gc.freeze()
        gc.disable()
        try:
            ran = self._run(
                batch_size,
                steps,
                "measure",
                block=block,
                min_ns=int(cfg.min_block_ms * 1e6),
                flush_ns=MEASURE_FLUSH_NS,
            )
        finally:
            gc.enable()
            gc.unfreeze()
        self.ch.emit(
            "block_done",
            batch_size=batch_size,
            block=block,
            steps=ran,
            quiet=quiet,
            waited_s=round(waited_s, 3),
        )

    def finish(self, batch_size: int, detail: bool = True) -> None:
        """After a batch size's blocks: its peaks and insight; with `detail` (one round per
        run), the untimed extras: training memory on CPU, the profiler pass, a CUDA snapshot."""
        self._take_insight(batch_size, self.next_step)
        peaks = self.memory.peaks()  # before any untimed extra step
        steady = self._steady_memory(peaks) if detail else {}
        if detail and self.cfg and self.cfg.profile_steps and self.artifacts is not None:
            self._profile(batch_size, self.cfg.profile_steps)
        last = _as_float(self.last_loss)
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

    def _check_threads(self) -> None:
        """Every worker computes with the same number of threads; user code changing it would
        make the arms incomparable."""
        cfg = self.cfg
        if cfg and cfg.threads and torch.get_num_threads() != cfg.threads:
            raise StepFailed(
                self._usage(
                    f"torch.get_num_threads() is {torch.get_num_threads()}, not the {cfg.threads} "
                    "tcprof set in every arm: does the model file call torch.set_num_threads? "
                    "(choose with --threads)"
                )
            )

    # -- steps ------------------------------------------------------------------------------
    def _step(self, batch: inputs.Batch) -> torch.Tensor:
        out = self.runner(*batch.args, **batch.kwargs)
        loss = self.loss_of(out, batch)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss

    def _explain(self, batch_size: int) -> None:
        from profiler.worker.explain_pass import explain_pass

        self.ch.emit("phase", phase="explain", batch_size=batch_size)
        explain_pass(self.ch, self.model, self.optimizer, self.batches[0], batch_size, self.watcher)

    def _release_batch_size(self) -> None:
        self.batches = []
        self.last_loss = None
        self.optimizer.zero_grad(set_to_none=True)
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        elif self.device.type == "mps":
            torch.mps.synchronize()

    def _first_step(self, batch_size: int) -> tuple[float, float | None, float | None]:
        """Timed alone and in stages, so an error names its stage and the gradient norm can be
        read (untimed) between backward and the optimizer step."""
        batch = self.batches[0]
        compiled = bool(self.arm and self.arm.compiled)
        self._sync()
        clock = time.perf_counter_ns
        t0 = clock()
        stage = "forward"
        try:
            out = self.runner(*batch.args, **batch.kwargs)
            stage = "loss"
            loss = self.loss_of(out, batch)
            stage = "backward"
            loss.backward()
            self._sync()
            t1 = clock()
            grad_norm = _grad_norm(self.model)
            loss_value = _as_float(loss)
            t2 = clock()
            stage = "optimizer"
            self.optimizer.step()
            self.optimizer.zero_grad()
            self._sync()
            t3 = clock()
        except inputs.InputError as exc:
            raise StepFailed(self._simple_error("loss", str(exc), batch_size)) from exc
        except Exception as exc:
            self._take_insight(batch_size, step=0)
            raise StepFailed(
                errors.describe(exc, stage, compiled, self.user_file, batch_size)
            ) from exc
        self.last_loss = loss
        return ((t1 - t0) + (t3 - t2)) / 1e6, loss_value, grad_norm

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

        loop = timed_loop.run_cuda if self.device.type == "cuda" else timed_loop.run_cpu
        sync = torch.mps.synchronize if self.device.type == "mps" else None
        try:
            loss, ran = loop(
                self._step,
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
        self.next_step += ran
        self.last_loss = loss
        return ran

    # -- insight and memory -------------------------------------------------------------------
    def _take_insight(self, batch_size: int, step: int) -> list[dict[str, Any]]:
        if self.watcher is None:
            return []
        compiles = self.watcher.take_compiles()
        for c in compiles:
            self.ch.emit("compile", batch_size=batch_size, step=step, **c)
        self.bs_compiles.extend(compiles)
        for gb in self.watcher.take_graph_breaks():
            self.ch.emit("graph_break", batch_size=batch_size, step=step, **gb)
            self.bs_graph_breaks.append(gb)
        for fb in self.watcher.take_fallbacks():
            self.ch.emit("fallback", batch_size=batch_size, step=step, **fb)
            self.bs_fallbacks.append(fb)
        for log in self.watcher.take_artifact_logs():
            self.ch.emit("log", stream="torch", **log)
        return compiles

    def _sample_memory(self, batch_size: int, step: int) -> None:
        self.ch.emit("memory", batch_size=batch_size, step=step, **self.memory.sample())

    # -- errors -----------------------------------------------------------------------------
    def _usage(self, message: str) -> dict[str, Any]:
        return self._simple_error("usage", message)

    def _simple_error(
        self, kind: str, message: str, batch_size: int | None = None
    ) -> dict[str, Any]:
        return {
            "kind": kind,
            "message": message,
            "traceback": None,
            "file": None,
            "line": None,
            "batch_size": batch_size,
            "fatal": True,
        }

    def _error_from_load(self, exc: model_source.ModelLoadError) -> dict[str, Any]:
        event = errors.describe(exc, "load", False, getattr(self, "user_file", None))
        event.update(kind=exc.kind, message=str(exc))
        if exc.file:
            event.update(file=exc.file, line=exc.line)
        return event


def _as_float(t: torch.Tensor | None) -> float | None:
    if t is None:
        return None
    value = float(t.detach().float().item())
    return value if math.isfinite(value) else None


def _grad_norm(model: torch.nn.Module) -> float | None:
    grads = [p.grad.detach().float().norm() for p in model.parameters() if p.grad is not None]
    if not grads:
        return None
    value = float(torch.stack(grads).norm().item())
    return value if math.isfinite(value) else None
