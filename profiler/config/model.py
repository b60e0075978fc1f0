"""The run's model: `RunConfig`, with its model source and debug options, frozen and checked as
a whole (`validate` and its parts) when it is made, before any worker starts; a worker receives
it as JSON. The checks sit with the record because making one runs them (`__post_init__`): a
RunConfig that exists is a valid one. Its arms are `arm.py`'s, its A/A twins `controls.py`'s."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcprof.profiler.config.arm import ArmSpec
from tcprof.profiler.config.choices import (
    AMP_DTYPES,
    COMPILE_MODES,
    CONTROL_LABEL,
    CUDAGRAPH_MODES,
    CUDAGRAPH_WARMUP,
    DEFAULT_BATCH_SIZES,
    DEFAULT_PRECISION,
    DEFAULT_RDZV_TIMEOUT_S,
    DEFAULT_REMOTE_PYTHON,
    DEFAULT_REPLICATES,
    DEFAULT_STALL_TIMEOUT_S,
    DEVICES,
    LOG_ARTIFACTS,
    LOOPS,
    MIN_BLOCK_MS,
    OPTIMIZERS,
    PARALLEL,
    WEIGHT_SUFFIXES,
    ConfigError,
)
from tcprof.profiler.config.controls import control_arms, normalize_control, run_arms
from tcprof.profiler.config.limits import check_limits
from tcprof.profiler.config.parse import parse_endpoint, parse_input_shape
from tcprof.profiler.config.script import (
    TORCHRUN,
    ScriptSource,
    check_script_options,
    script_parallel,
)


@dataclass(frozen=True)
class ModelSource:
    """Where the model comes from: a Python file plus an optional class name or factory."""

    path: str
    model: str | None = None  # class or factory function name defined in the file
    factory: str | None = None  # an expression evaluated in the file's namespace
    input_shape: str | None = None  # e.g. "10", "3x64x64", "int:128"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class DebugOptions:
    """Debug settings applied inside each compiled arm's worker (all recorded in the session)."""

    logs: tuple[str, ...] = ()  # torch._logging.set_logs artifacts
    verbose: bool = False  # torch._dynamo.config.verbose
    suppress_errors: bool = False  # torch._dynamo.config.suppress_errors: hides failures
    fail_on_recompile: bool = (
        False  # torch.compiler.set_stance("fail_on_recompile"), after the first compile
    )
    explain: bool = False  # a torch._dynamo.explain pre-pass on the first batch (untimed)
    compile_debug: bool = False  # TORCH_COMPILE_DEBUG=1, dumped under the session folder
    trace: bool = False  # TORCH_TRACE structured log (and a tlparse report if tlparse is installed)
    memory_snapshot: bool = (
        False  # CUDA: torch.cuda.memory._record_memory_history -> snapshot.pickle
    )

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "logs": list(self.logs)}


@dataclass(frozen=True)
class RunConfig:
    source: ModelSource
    arms: tuple[ArmSpec, ...] = (ArmSpec("eager"), ArmSpec("inductor"))
    batch_sizes: tuple[int, ...] = DEFAULT_BATCH_SIZES
    warmup: int = 5
    steps: int = 50
    blocks: int = 5  # measured steps are split into this many interleaved blocks per arm
    sequential: bool = False
    device: str = "cpu"
    optimizer: str = "sgd"
    lr: float = 0.01
    seed: int = 0
    replicates: int = DEFAULT_REPLICATES  # rounds, each with one fresh process per arm
    # no --replicates: stop when settled (analysis/stopping.py); replicates is then the most
    stop_early: bool = False
    precision: float = DEFAULT_PRECISION  # stop_early: the half-width that is enough
    budget_s: float | None = None  # stop_early: stop at a balanced point before this runs out
    # A/A twins, the noise floor: "eager" (CONTROL_LABEL), "compiled" (a twin of the first
    # compiled arm) or "both"; None: none. Sessions before schema 3 hold True / False.
    control: str | None = None
    threads: int | None = None  # torch.set_num_threads in every worker; None: resolve_threads()
    warm_cache: bool = False  # use the user's compile caches instead of a fresh one per arm
    # round 2 starts from the cold round's portable cache artifacts (run/cache_plan.py)
    portable_round: bool = False
    min_block_ms: float = MIN_BLOCK_MS  # a measured block runs at least this long
    accuracy: bool = True  # the untimed accuracy check, one process per compiled arm
    accuracy_rtol: float | None = None  # None: the dtype's default tolerance
    accuracy_atol: float | None = None
    debug: DebugOptions = field(default_factory=DebugOptions)
    timeout_s: float | None = None
    # a phase with no progress for this long ends its arm (stall_watch.py); None or 0: never
    stall_timeout_s: float | None = DEFAULT_STALL_TIMEOUT_S
    artifacts_dir: str | None = None  # where per-arm debug artifacts go (the session folder)
    profile_steps: int = 0  # >0: a separate torch.profiler pass of this many steps per batch size
    apply_advice: bool = False  # after the rounds, run each fix tcprof can apply (advice)
    ladder: bool = False  # the arms are the backend ladder's stages (profiler.ladder)
    block_module: str | None = None  # the repeated block's class (default: largest ModuleList)
    weights: str | None = None  # the user's checkpoint, loaded into the model before the run
    save_weights: str | None = None  # "safetensors" or "pt": each arm's trained weights, verified
    loop: str = "train"  # "inference": model.eval(), forward only under torch.inference_mode()
    amp: str | None = None  # "bf16" or "fp16": torch.autocast around forward and loss
    channels_last: bool = False  # the model and 4-D inputs in torch.channels_last
    compile_optimizer: bool = False  # compiled arms compile optimizer.step() too (train only)
    nproc: int = 1  # processes per arm (torchrun --nproc-per-node) for a distributed arm
    parallel: str = "none"  # ddp | fsdp | none: how a distributed arm wraps the model
    # several nodes (node_leader.py): every node runs the same command but for node_rank;
    # node 0 runs the schedule and writes the session, the others follow it
    nnodes: int = 1
    node_rank: int = 0
    rdzv_endpoint: str | None = None  # HOST:PORT of node 0, reachable from every node
    rdzv_timeout_s: float = DEFAULT_RDZV_TIMEOUT_S  # the nodes' rendezvous, apart from stalls
    host: str | None = None  # run the workers on this machine over ssh (None: this one)
    remote_python: str = DEFAULT_REMOTE_PYTHON  # the interpreter on `host`
    # a training script run unchanged (config/script.py); None: a model file's generated loop
    script: ScriptSource | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "control", normalize_control(self.control))
        object.__setattr__(
            self, "parallel", script_parallel(self.script, self.nproc, self.parallel)
        )
        validate(self)

    @property
    def run_arms(self) -> tuple[ArmSpec, ...]:
        """The arms that run: the configured ones, then the A/A control when asked for."""
        return run_arms(self.arms, self.control)

    def parallel_of(self, arm: ArmSpec) -> str:
        """How `arm` runs: ddp or fsdp (a torchrun job of `nproc` ranks), or none."""
        return arm.parallel if arm.parallel is not None else self.parallel

    def world_size(self, arm: ArmSpec) -> int:
        return self.nproc * self.nnodes if self.parallel_of(arm) != "none" else 1

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["arms"] = [a.to_dict() for a in self.arms]
        d["batch_sizes"] = list(self.batch_sizes)
        d["debug"] = self.debug.to_dict()
        d["script"] = self.script.to_dict() if self.script else None
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        data = dict(data)
        data["source"] = ModelSource(**data["source"])
        data["arms"] = tuple(ArmSpec.from_dict(a) for a in data["arms"])
        data["batch_sizes"] = tuple(data["batch_sizes"])
        dbg = dict(data.get("debug") or {})
        dbg["logs"] = tuple(dbg.get("logs") or ())
        data["debug"] = DebugOptions(**dbg)
        script = data.get("script")
        data["script"] = ScriptSource.from_dict(script) if isinstance(script, dict) else None
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def validate(cfg: RunConfig) -> None:
    if not cfg.arms:
        raise ConfigError("at least one arm is needed")
    if any(a.label == CONTROL_LABEL for a in cfg.arms):
        raise ConfigError(
            f"the label {CONTROL_LABEL!r} is reserved for the A/A control (--control)"
        )
    if cfg.control in ("compiled", "both") and not any(a.compiled for a in cfg.arms):
        raise ConfigError("--control compiled needs a compiled arm to be the twin of")
    twins = {s.name for s in control_arms(cfg.arms, cfg.control)}
    if any(a.name in twins for a in cfg.arms):
        taken = sorted(twins & {a.name for a in cfg.arms})
        raise ConfigError(f"the name {taken[0]!r} is reserved for the A/A control (--control)")
    names = [a.name for a in cfg.arms]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"arm names must be distinct (give a label): {', '.join(dupes)}")
    for arm in cfg.arms:
        if arm.mode is not None and arm.mode not in COMPILE_MODES:
            raise ConfigError(
                f"unknown mode {arm.mode!r}; choose one of {', '.join(COMPILE_MODES)}"
            )
        if arm.mode not in (None, "default") and arm.backend != "inductor":
            raise ConfigError(
                f"mode={arm.mode!r} only applies to backend 'inductor', not {arm.backend!r}"
            )
        if not arm.compiled and (arm.mode or arm.dynamic is not None or arm.fullgraph):
            raise ConfigError("the eager arm takes no compile options")
        if arm.mode in CUDAGRAPH_MODES and cfg.warmup < CUDAGRAPH_WARMUP:
            raise ConfigError(
                f"mode={arm.mode} needs --warmup {CUDAGRAPH_WARMUP} or more: CUDA graphs are "
                "recorded on the second call and replayed from the third, and a recording "
                "step timed as steady state would be wrong"
            )
    if not cfg.batch_sizes:
        raise ConfigError("at least one batch size is needed")
    if any((not isinstance(b, int)) or b < 1 for b in cfg.batch_sizes):
        raise ConfigError(f"batch sizes must be positive integers: {list(cfg.batch_sizes)}")
    check_limits(cfg)
    if cfg.device not in DEVICES:
        raise ConfigError(f"unknown device {cfg.device!r}; choose one of {', '.join(DEVICES)}")
    if cfg.optimizer not in OPTIMIZERS:
        raise ConfigError(
            f"unknown optimizer {cfg.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}"
        )
    for art in cfg.debug.logs:
        if art not in LOG_ARTIFACTS:
            raise ConfigError(
                f"unknown log artifact {art!r}; choose from {', '.join(LOG_ARTIFACTS)}"
            )
    if cfg.weights is not None:
        check_weights_file(cfg.weights)
    check_loop(cfg)
    if cfg.script is not None:
        check_script(cfg)
    check_parallel(cfg)
    check_host(cfg)
    check_interpreters(cfg)
    if cfg.save_weights not in (None, "safetensors", "pt"):
        raise ConfigError(f"weights are saved as safetensors or pt, not {cfg.save_weights!r}")
    if cfg.source.input_shape is not None:
        parse_input_shape(cfg.source.input_shape)


def check_script(cfg: RunConfig) -> None:
    """A script runs its own loop: the options of the generated one are usage errors, and
    its placeholders need values (the phases)."""
    assert cfg.script is not None
    cfg.script.check()
    values = {name: getattr(cfg, name) for name in ("loop", "amp", "channels_last")}
    values.update(compile_optimizer=cfg.compile_optimizer, weights=cfg.weights)
    values.update(save_weights=cfg.save_weights, profile_steps=cfg.profile_steps)
    values.update(apply_advice=cfg.apply_advice)
    values.update(nproc=cfg.nproc, parallel=cfg.parallel, nnodes=cfg.nnodes)
    values["arms"] = [a.to_dict() for a in cfg.arms]
    check_script_options(values)


def check_output_folder(cfg: RunConfig) -> None:
    """Compile-debug dumps, TORCH_TRACE logs, memory snapshots and saved weights are written into
    the run's folder: a run that asks for them must have one. A recorded run
    (profiler/run/recorded.py) always does; this is checked where a run starts, not when a
    config is built (the window and the CLI build theirs before the folder exists)."""
    needs_dir = (
        cfg.debug.compile_debug or cfg.debug.trace or cfg.debug.memory_snapshot or cfg.save_weights
    )
    if needs_dir and not cfg.artifacts_dir:
        raise ConfigError(
            "compile-debug dumps, TORCH_TRACE and memory snapshots need an output folder"
        )


def check_loop(cfg: RunConfig) -> None:
    """The loop kind and its options; whether this torch supports autocast with the dtype on
    the device is the worker's check (it depends on the build)."""
    if cfg.loop not in LOOPS:
        raise ConfigError(f"unknown loop {cfg.loop!r}; choose one of {', '.join(LOOPS)}")
    if cfg.amp is not None and cfg.amp not in AMP_DTYPES:
        raise ConfigError(f"unknown --amp {cfg.amp!r}; choose one of {', '.join(AMP_DTYPES)}")
    if not isinstance(cfg.channels_last, bool) or not isinstance(cfg.compile_optimizer, bool):
        raise ConfigError("channels_last and compile_optimizer are true or false")
    if cfg.compile_optimizer and cfg.loop == "inference":
        raise ConfigError(
            "--compile-optimizer compiles the optimizer step, and an inference loop has none"
        )
    if cfg.compile_optimizer and not any(a.compiled for a in cfg.arms):
        raise ConfigError(
            "--compile-optimizer applies to compiled arms, and every arm here is eager"
        )
    if cfg.loop == "inference" and cfg.save_weights:
        raise ConfigError(
            "--save-weights saves trained weights, and an inference loop trains nothing"
        )


def check_parallel(cfg: RunConfig) -> None:
    """Distributed arms: a parallel wrapper with at least one rank. --parallel with --nproc 1 is
    allowed (a world of one: the wrapper's own cost, no communication); --nproc 2 or more with
    no distributed arm would run nothing distributed, so it is an error."""
    for value in (cfg.parallel, *(a.parallel for a in cfg.arms if a.parallel is not None)):
        if value not in PARALLEL and not (cfg.script is not None and value == TORCHRUN):
            raise ConfigError(f"unknown parallel {value!r}; choose one of {', '.join(PARALLEL)}")
    distributed = [a for a in cfg.arms if cfg.parallel_of(a) != "none"]
    if cfg.nproc > 1 and not distributed:
        raise ConfigError("--nproc N runs a distributed arm: give --parallel ddp or fsdp")
    if distributed and cfg.loop == "inference":
        raise ConfigError(
            "--parallel wraps a training step (DDP, FSDP); an inference loop has none: "
            "use --loop train or --parallel none"
        )
    if cfg.save_weights and any(cfg.parallel_of(a) == "fsdp" for a in cfg.arms):
        raise ConfigError("--save-weights does not gather FSDP's sharded weights yet")
    if distributed and cfg.device == "mps":
        raise ConfigError("distributed arms run on cpu (gloo) or cuda (nccl), not mps")
    check_nodes(cfg, bool(distributed))


def check_nodes(cfg: RunConfig, distributed: bool) -> None:
    """Several nodes: a node rank within the nodes, node 0's endpoint, a distributed arm."""
    if not isinstance(cfg.node_rank, int) or not 0 <= cfg.node_rank < cfg.nnodes:
        raise ConfigError(f"--node-rank is between 0 and {cfg.nnodes - 1} (--nnodes {cfg.nnodes})")
    if cfg.nnodes == 1:
        return
    if not distributed:
        raise ConfigError("--nnodes M runs distributed arms: give --parallel ddp or fsdp")
    if cfg.rdzv_endpoint is None:
        raise ConfigError("--nnodes M needs --rdzv-endpoint HOST:PORT (node 0's address)")
    parse_endpoint(cfg.rdzv_endpoint)
    if any(cfg.parallel_of(a) == "none" for a in cfg.run_arms):
        raise ConfigError(
            "with --nnodes every arm is distributed (the other nodes have nothing to run for an "
            "arm of one process): drop parallel=none from the arms"
        )


def check_host(cfg: RunConfig) -> None:
    """A host is one word that cannot pass for an ssh option; the interpreter is not empty."""
    if cfg.host is not None and (
        not isinstance(cfg.host, str) or not re.fullmatch(r"[^\s-][^\s]*", cfg.host)
    ):
        raise ConfigError(f"--host {cfg.host!r} is not a host name or ssh alias")
    if not isinstance(cfg.remote_python, str) or not cfg.remote_python.strip():
        raise ConfigError("--remote-python names the interpreter on --host, e.g. python3")
    if cfg.host is not None and cfg.nnodes > 1:
        raise ConfigError(
            "--host runs the arms on one other machine; several nodes (--nnodes) each run "
            "their own tcprof run instead"
        )


def check_interpreters(cfg: RunConfig) -> None:
    """An arm's own interpreter (`python=PATH`) starts one local worker process of the
    generated loop; whether it starts and has torch is preflight's check, before any arm runs."""
    for arm in cfg.arms:
        if arm.python is None:
            continue
        if not isinstance(arm.python, str) or not arm.python.strip():
            raise ConfigError(
                f"arm {arm.name!r}: python= names an interpreter, e.g. python=/opt/torch214/bin/python"
            )
        if cfg.host is not None:
            raise ConfigError(
                f"arm {arm.name!r}: python= is for a local arm; on --host give --remote-python"
            )
        if cfg.script is not None:
            raise ConfigError(
                f"arm {arm.name!r}: python= takes a model file; a script names its own interpreter after --"
            )
        if cfg.parallel_of(arm) != "none":
            raise ConfigError(
                f"arm {arm.name!r}: python= runs one process; a distributed arm (parallel=) cannot take it yet"
            )


def check_weights_file(path: str) -> None:
    """A checkpoint is read by the worker; the name and the file are checked here, before
    any worker starts."""
    p = Path(path)
    if p.suffix not in WEIGHT_SUFFIXES:
        raise ConfigError(f"--weights reads {', '.join(WEIGHT_SUFFIXES)} files, not {p.name!r}")
    if not p.is_file():
        raise ConfigError(f"--weights: no such file: {path}")


def arm_artifacts_dir(cfg: RunConfig, arm_index: int) -> Path | None:
    """Per-arm folder for debug artifacts: <session>/artifacts/<index>-<arm name>."""
    if not cfg.artifacts_dir:
        return None
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", cfg.run_arms[arm_index].name).strip("_")
    return Path(cfg.artifacts_dir) / "artifacts" / f"{arm_index}-{name}"
