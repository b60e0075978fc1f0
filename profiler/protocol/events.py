"""The event protocol between a worker process and the engine, declared once.

Events are small JSON objects, one per line, on the worker's event channel. Every event has a
`type`; the engine adds the fields of `Relayed` when it relays one. The set is versioned by
PROTOCOL_VERSION, which the worker states in `ready` and `hello`; the engine refuses a worker of
another version (wire.check_hello). A reader ignores types and fields it does not know.

Each type's fields are its TypedDict below (EVENT_FIELDS), their one declaration: the runtime
shapes of profiler/protocol/event_schema.py take their keys from there. How an event travels
(one line of strict JSON) and the version check are profiler/protocol/wire.py's.

Worker -> engine:
  ready        the worker is up (before torch is imported)
  hello        the worker's environment: versions, device, backends
  loaded       the model is built, and the loop that runs it
  phase        what the worker is doing now (a Phase)
  first_step   a batch size's first (compiling) step
  steps        step times, of the warm-up or of a measured block (a StepsPhase)
  memory       the process's memory after a step
  compile      a compile or a recompile (a CompileKind), and why
  graph_break  a graph break, and where
  fallback     the recompile limit was hit: the frame runs eagerly from now on
  cudagraph_skip  CUDA graphs asked for, skipped
  explain      torch._dynamo.explain's counts (a debug option)
  block_done   a measured block ended
  bs_done      a batch size ended: its peaks and compile counts
  accuracy     the untimed accuracy check of a batch size
  profile      the torch.profiler pass
  artifact     a file written for the arm
  cache_saved  portable compile-cache artifacts saved (or why not)
  cache_loaded portable compile-cache artifacts loaded
  model_info   the answer to `inspect`
  log          lines of output, torch's logs or tcprof's own (or a notice of lines cut out)
  error        something failed (its kind one of ERROR_KINDS)
  done         a command finished
  bye          the answer to `exit`
  rank_where   a rank of a distributed arm: where its main thread is (answer to `where`)
  script       what a script run did that the session lists: its model, what was compiled
               and where, the files it wrote
Engine -> listeners (besides the above):
  run_start    the run began, with its config
  round_start  a round began: its cache state and its arms' order
  arm_start    an arm's process is starting
  worker_exit  an arm's process ended, and how
  round_end    a round ended
  run_end      the run ended, and how
  arms_added   --apply-advice's derived arms join the session after its rounds
  rank_event   one rank's own event of a distributed arm (whose other events are the ranks'
               merged, rank_merge.py)
Inside the engine and the application only (never written by a worker):
  _eof         a worker's event channel closed (read by the runner, never published)
  summary      the application's live session summary, after each bs_done
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal, TypedDict

PROTOCOL_VERSION = 2  # 2: the accuracy check is two steps, may say "nondeterministic"


class EventType(str, Enum):
    """Every event type. A str, so `EventType.HELLO == "hello"` and JSON is unchanged."""

    __str__ = str.__str__  # f-strings show the value on every Python version

    READY = "ready"
    HELLO = "hello"
    LOADED = "loaded"
    PHASE = "phase"
    FIRST_STEP = "first_step"
    STEPS = "steps"
    MEMORY = "memory"
    COMPILE = "compile"
    GRAPH_BREAK = "graph_break"
    FALLBACK = "fallback"
    CUDAGRAPH_SKIP = "cudagraph_skip"
    EXPLAIN = "explain"
    BLOCK_DONE = "block_done"
    BS_DONE = "bs_done"
    ACCURACY = "accuracy"
    PROFILE = "profile"
    ARTIFACT = "artifact"
    CACHE_SAVED = "cache_saved"
    CACHE_LOADED = "cache_loaded"
    MODEL_INFO = "model_info"
    LOG = "log"
    ERROR = "error"
    DONE = "done"
    BYE = "bye"
    RUN_START = "run_start"
    ROUND_START = "round_start"
    ARM_START = "arm_start"
    WORKER_EXIT = "worker_exit"
    ROUND_END = "round_end"
    RUN_END = "run_end"
    ARMS_ADDED = "arms_added"
    RANK_EVENT = "rank_event"
    RANK_WHERE = "rank_where"
    SCRIPT = "script"
    EOF = "_eof"
    SUMMARY = "summary"


class Phase(str, Enum):
    """What a worker is doing, announced by a `phase` event, in the order they come."""

    __str__ = str.__str__

    LOADING = "loading"  # importing the model file and building the model
    EXPLAIN = "explain"  # torch._dynamo.explain pre-pass (debug option)
    COMPILING = "compiling"  # a compiled arm's first step
    FIRST_STEP = "first_step"  # an eager arm's first step
    WARMUP = "warmup"
    MEASURING = "measuring"  # a timed block
    PROFILING = "profiling"  # the untimed torch.profiler pass
    ACCURACY = "accuracy"  # the untimed accuracy check
    IDLE = "idle"  # between batch sizes


class StepsPhase(str, Enum):
    """The `phase` of a `steps` event: which steps its samples are."""

    __str__ = str.__str__

    WARMUP = "warmup"
    MEASURE = "measure"


class CompileKind(str, Enum):
    """The `kind` of a `compile` event."""

    __str__ = str.__str__

    FIRST = "first"
    RECOMPILE = "recompile"


ERROR_KINDS = (
    "usage",  # bad configuration found by the worker (unknown backend, ...)
    "load",  # the model file could not be imported or the model not built
    "syntax",  # the model file has a syntax error
    "forward",  # the first forward failed (shape mismatch, ...)
    "loss",  # no loss could be formed from the model's output
    "backward",  # backward() raised
    "optimizer",
    "compile",  # torch.compile / a backend failed
    "runtime",  # a later step raised
    "oom",  # out of memory
    "weights",  # saving the trained weights failed (not fatal)
    "crash",  # the worker ended unasked (signal, os._exit, a closed channel)
    "timeout",  # the run passed its --timeout
    "stall",  # a phase made no progress for --stall-timeout seconds
    "rendezvous",  # the other nodes of a run on several nodes did not join node 0 in time
    "protocol",  # an unknown command, or a worker of another protocol version
    "internal",  # the run failed inside the profiler (the application's run thread)
)


# -- one TypedDict per event type --------------------------------------------------------------
class Relayed(TypedDict, total=False):
    """What the engine adds to every event it relays."""

    type: str
    arm: int  # the arm's index
    replicate: int | str  # the round, or "accuracy" (the untimed accuracy process)
    t: float  # seconds since the run started


class ReadyEvent(Relayed):
    protocol: int


class HelloEvent(Relayed, total=False):
    protocol: int  # absent from workers older than the check: read as 1
    torch: str
    triton: str | None  # its installed version (None: none installed)
    python: str
    executable: str  # the interpreter's path (an arm's `python=`, or the engine's own)
    platform: str
    device: str  # cpu | cuda | mps
    device_name: str
    cpu: str
    cpu_count: int
    torch_threads: int
    cuda: str | None
    cuda_available: bool
    devices: list[str]
    backends: list[str] | None  # None when TorchDynamo was not imported (eager arms)
    pid: int
    cuda_memory_mb: int
    world_size: int  # a distributed arm's ranks (the hello is rank 0's)


class LoadedEvent(Relayed, total=False):
    model: str  # how the model was built, e.g. "Net()"
    params: int
    input: str
    input_source: str
    cache_dir: str | None
    threads: int
    weights: dict[str, Any] | None  # the user's checkpoint: path, tensors
    regional: dict[str, Any] | None  # a regional arm's compiled blocks: class, count, where
    parallel: dict[str, Any] | None  # a distributed arm: parallel, world_size, sharded_blocks
    # the loop that runs: kind (train|inference), model_mode, inference_mode, amp,
    # autocast_dtype, grad_scaler, channels_last, channels_last_params, optimizer
    # (eager|compiled|None)
    loop: dict[str, Any]
    candidates: list[dict[str, Any]]
    # inductor's once-per-machine CPU check, run before compiling (worker/cpu_check.py):
    # seconds, built (first on this machine), first_s (its cost then), isas, seeded; or error
    cpu_check: dict[str, Any]


class PhaseEvent(Relayed):
    phase: str  # a Phase
    batch_size: int | None


class FirstStepEvent(Relayed, total=False):
    batch_size: int
    ms: float
    loss: float | None
    grad_norm: float | None
    compile_s: float  # dynamo's compile time during the step (a script: not before it)
    compiles: int
    compile_peak_mb: float | None
    # a script: from its start to its first training forward (imports, data, model, an
    # evaluation before training), less the compiles before it (startup_compile_s)
    startup_s: float
    startup_compile_s: float


class StepsEvent(Relayed, total=False):
    batch_size: int
    phase: str  # a StepsPhase
    start: int  # the first sample's step index
    ms: list[float]
    block: int  # measured blocks only
    # a distributed arm's merged steps: `ms` is the slowest rank's per step, this the fastest's
    ms_fastest: list[float]
    # a script: `ms` is each step's compute (its first forward to its optimizer step's end);
    # own_ms the script's own time before it (data, logging, evaluation), loss what backward
    # was called on (None: not known)
    own_ms: list[float | None]
    loss: list[float | None]
    # ... and what each step's forwards were given (script_work.py): the samples (the batch's
    # leading dimension) and tokens (batch x sequence of token ids), summed over its
    # micro-batches, padding counted (None: not seen)
    samples: list[int | None]
    tokens: list[int | None]


class MemoryEvent(Relayed, total=False):
    batch_size: int
    step: int
    rss_mb: float
    cuda_alloc_mb: float | None
    cuda_reserved_mb: float | None


class CompileEvent(Relayed, total=False):
    batch_size: int
    step: int
    compile_id: str | None
    kind: str  # a CompileKind
    reason: str | None  # the guard that failed, for a recompile
    frame: str | None
    file: str | None
    line: int | None
    seconds: float | None
    backend_s: float | None
    inductor_s: float | None
    code_gen_s: float | None
    backward_s: float | None  # the lazy backward compile, at the first backward
    fx_cache_hits: int | None
    fx_cache_misses: int | None
    ddp_subgraphs: int | None  # DDPOptimizer split this frame's graph at bucket boundaries
    aot_cache_hits: int | None
    aot_cache_misses: int | None
    graph_ops: int | None
    guards: int | None
    fail_type: str | None  # a compile that failed (under suppress_errors: runs eagerly)
    fail_reason: str | None
    # when it began (a script: before_training | step | evaluation, and the step's index),
    # the grad mode, the call in the user's code and the call's tensor shapes
    when: str
    at_step: int
    grad_mode: bool
    site_file: str | None
    site_line: int | None
    shapes: list[list[int]] | None


class GraphBreakEvent(Relayed, total=False):
    batch_size: int
    step: int
    reason: str
    explanation: str | None
    hints: list[str]
    file: str | None
    line: int | None
    text: str


class FallbackEvent(Relayed, total=False):
    batch_size: int
    step: int
    frame: str | None
    file: str | None
    line: int | None
    reason: str
    limit: int | None  # torch._dynamo.config.recompile_limit when it was hit


class CudagraphSkipEvent(Relayed, total=False):
    batch_size: int
    step: int
    reason: str  # Inductor's "skipping cudagraphs due to <reason>", or tcprof's for a CPU graph
    file: str | None  # the frame the reason points at, the user's where it is theirs
    line: int | None
    count: int  # skips with this reason since the last report


class ExplainEvent(Relayed, total=False):
    batch_size: int
    graph_count: int
    graph_break_count: int
    op_count: int
    break_reasons: list[dict[str, Any]]  # reason, file, line


class BlockDoneEvent(Relayed, total=False):
    batch_size: int
    block: int
    steps: int  # steps run (a block runs at least min_block_ms)
    quiet: bool  # whether the other processes were idle when it started
    waited_s: float
    random_wait_s: float  # the engine's random wait before the block (untimed)
    busy_elsewhere: float  # cores the rest of the machine kept busy, on average, meanwhile
    contended: bool  # busy_elsewhere beyond what CPU-time ticks could misread (quiet_room)
    reference_us: float  # the machine's own speed before the block: a fixed product's time
    reference_after_us: float  # ... and after it (worker/machine_speed.py)


class BsDoneEvent(Relayed, total=False):
    batch_size: int
    last_loss: float | None
    graphs: int
    recompiles: int
    graph_breaks: int
    fell_back: bool
    dynamo_compile_s: float
    peak_rss_mb: float
    os_peak_rss_mb: float
    peak_cuda_mb: float | None
    peak_cuda_reserved_mb: float | None
    steady_peak_mb: float | None
    steady_method: str


class AccuracyEvent(Relayed, total=False):
    batch_size: int
    # nondeterministic: two eager runs differed, so the compiled run was not judged
    status: Literal["pass", "fail", "skipped", "nondeterministic"]
    worst: dict[str, Any] | None  # name, max_abs_err, max_rel_err
    reason: str | None
    float64: bool
    rtol: float
    atol: float
    compared: int  # tensors compared, over all steps
    # output, loss, gradients, buffers, parameters after the optimizer step (of those checked)
    checked: list[str]
    autocast: str | None  # the autocast dtype both runs used, e.g. "torch.bfloat16"
    ranks_checked: int  # a distributed arm: ranks that each checked their steps (else absent)
    steps: int  # training steps each run took, the second from the first's weights (absent: 1)
    failed_step: int | None  # the first step at which a tensor differed (fail, nondeterministic)
    failed_quantities: list[str]  # what differed at that step, named as in `checked`
    # a script's loss parity: the first steps' losses of eager, eager again and the arm
    curves: dict[str, list[float | None]]
    # a script's: the judged run had inductor's fallback_random on (its first run's curve parted)
    fallback_random: bool


class ProfileEvent(Relayed, total=False):
    batch_size: int
    steps: int
    path: str
    top_ops: list[dict[str, Any]]
    step_ms: float  # wall time per profiled step, the profiler's overhead included
    quiet: bool  # whether the other processes were idle when it started
    mismatch: str | None  # the session's: why it does not describe the step (never the worker's)


class ArtifactEvent(Relayed, total=False):
    kind: str  # torch_trace | tlparse | memory_snapshot | torch_profiler_trace | weights
    path: str
    batch_size: int
    format: str  # weights only: format, tensors, verified
    tensors: int
    verified: bool


class CacheSavedEvent(Relayed, total=False):
    saved: bool
    path: str
    bytes: int
    artifacts: dict[str, int]  # count by kind
    reason: str  # why nothing was saved


class CacheLoadedEvent(Relayed, total=False):
    loaded: bool
    artifacts: dict[str, int]


class ModelInfoEvent(Relayed, total=False):
    path: str
    candidates: list[dict[str, Any]]
    chosen: str | None
    params: int | None
    input: str | None
    has_make_batch: bool
    error: dict[str, Any]  # kind, message, file, line, traceback
    probe: dict[str, Any]  # eager step ms per small batch size, leaf modules (step_probe.py)


class LogEvent(Relayed, total=False):
    stream: str  # output (the model's prints) | torch | tcprof | channel (a stray line)
    text: str
    artifact: str  # the torch._logging artifact, for stream "torch"
    dropped: int  # a notice in place of this many lines of a flood (log_limit.py)


class ErrorEvent(Relayed, total=False):
    kind: str  # one of ERROR_KINDS
    message: str
    exception: str
    traceback: str
    file: str | None  # the user's file and line, when the error is in it
    line: int | None
    batch_size: int | None
    fatal: bool  # false: the arm goes on with its next batch size (out of memory, ...)
    rank: int  # a distributed arm: the rank that raised it
    steps_run: int  # a script: the steps it completed before failing (first step included)


class DoneEvent(Relayed, total=False):
    cmd: str
    failed: bool


class ByeEvent(Relayed):
    pass


class RankWhereEvent(Relayed, total=False):
    where: str | None  # file:line (function) of the rank's main thread
    in_torch: bool | None  # inside torch: waiting in a collective or the autograd engine
    idle: bool | None  # waiting for the engine's next command


class RankEventEvent(Relayed, total=False):
    rank: int
    node: int  # the node rank (torchrun's GROUP_RANK)
    host: str | None
    # the rank's own event: hello, steps, first_step, bs_done, compile, graph_break or fallback
    event: dict[str, Any]


class ScriptEvent(Relayed, total=False):
    batch_size: int
    kind: str  # model | script_compile | in_place | other_optimizer | skipped_steps | files
    text: str  # in the user's words, e.g. "GPT (model.py:118) compiled in place ..."
    file: str | None
    line: int | None
    where: str
    files: list[dict[str, Any]]  # kind files: {path, bytes}
    skipped: int  # kind skipped_steps: the steps a GradScaler skipped, of `steps` in the run
    steps: int


class RunStartEvent(Relayed, total=False):
    config: dict[str, Any]
    wall_time: float
    provenance: dict[str, Any]  # tcprof's version and the source's git facts (config/provenance)
    # how rounds are seeded: {per_round, accuracy_seed, wait_max_s, script_own_seed,
    # order_randomised} (run/draws)
    seeding: dict[str, Any]
    # the check before any arm runs (run/preflight.py), in seconds: the time before `t` 0
    preflight_s: float


class ArmsAddedEvent(Relayed, total=False):
    arms: list[dict[str, Any]]  # ArmSpec dicts, indexed after the session's arms
    applied: list[dict[str, Any]]  # {arm, from_arm, apply}: the advice each one applies


class RoundStartEvent(Relayed, total=False):
    cache: str  # cold | portable | warm | user
    order: list[str]  # arm names, in the round's order
    seed: int  # the round's seed: every arm's weights and batches in this round (run/draws)


class ArmStartEvent(Relayed, total=False):
    name: str
    backend: str
    cache: str | None


class WorkerExitEvent(Relayed, total=False):
    status: str  # normal | stopped | signal | error | running
    code: int | None
    signal: str
    message: str


class RoundEndEvent(Relayed, total=False):
    block_wait_s: float  # the untimed random waits before the round's blocks, in all


class RunEndEvent(Relayed, total=False):
    status: str  # completed | completed_with_errors | stopped | timeout
    wall_time: float
    stopping: dict[str, Any]  # a run that stops when settled: why (analysis/stopping.record)


class EofEvent(Relayed):
    pass


class SummaryEvent(Relayed, total=False):
    session: dict[str, Any]


EVENT_FIELDS: dict[EventType, type] = {
    EventType.READY: ReadyEvent,
    EventType.HELLO: HelloEvent,
    EventType.LOADED: LoadedEvent,
    EventType.PHASE: PhaseEvent,
    EventType.FIRST_STEP: FirstStepEvent,
    EventType.STEPS: StepsEvent,
    EventType.MEMORY: MemoryEvent,
    EventType.COMPILE: CompileEvent,
    EventType.GRAPH_BREAK: GraphBreakEvent,
    EventType.FALLBACK: FallbackEvent,
    EventType.CUDAGRAPH_SKIP: CudagraphSkipEvent,
    EventType.EXPLAIN: ExplainEvent,
    EventType.BLOCK_DONE: BlockDoneEvent,
    EventType.BS_DONE: BsDoneEvent,
    EventType.ACCURACY: AccuracyEvent,
    EventType.PROFILE: ProfileEvent,
    EventType.ARTIFACT: ArtifactEvent,
    EventType.CACHE_SAVED: CacheSavedEvent,
    EventType.CACHE_LOADED: CacheLoadedEvent,
    EventType.MODEL_INFO: ModelInfoEvent,
    EventType.LOG: LogEvent,
    EventType.ERROR: ErrorEvent,
    EventType.DONE: DoneEvent,
    EventType.BYE: ByeEvent,
    EventType.RUN_START: RunStartEvent,
    EventType.ARMS_ADDED: ArmsAddedEvent,
    EventType.RANK_EVENT: RankEventEvent,
    EventType.RANK_WHERE: RankWhereEvent,
    EventType.SCRIPT: ScriptEvent,
    EventType.ROUND_START: RoundStartEvent,
    EventType.ARM_START: ArmStartEvent,
    EventType.WORKER_EXIT: WorkerExitEvent,
    EventType.ROUND_END: RoundEndEvent,
    EventType.RUN_END: RunEndEvent,
    EventType.EOF: EofEvent,
    EventType.SUMMARY: SummaryEvent,
}
"""The TypedDict that lists each type's fields."""


def field_names(declared: type) -> tuple[str, ...]:
    """The fields an event TypedDict declares, Relayed's first, in declaration order."""
    return tuple(declared.__annotations__)
