"""The choices a run offers (backends aside: `backends`), their defaults, and `ConfigError`,
the usage error every bad input becomes."""

from __future__ import annotations

DYNAMO_EAGER = "dynamo_eager"
CONTROL_LABEL = "eager-control"  # reserved: the eager A/A control arm added by `control`
CONTROL_SUFFIX = "-control"  # the compiled A/A control is the first compiled arm's name + this
CONTROLS = ("eager", "compiled", "both")  # the A/A twins `control` can add
# at least 6 rounds: t(5) / sqrt(6) makes the interval 15% narrower than 5 rounds
# (docs/methodology.md); the default is the fewest at or above it that balance the arms' order
DEFAULT_REPLICATES = 6
# With no --replicates a run stops when its answer is settled (analysis/stopping.py): after at
# least STOP_MIN_ROUNDS rounds, where balanced, once every interval's half-width is within
# DEFAULT_PRECISION, and by default by twice its first look's rounds.
STOP_MIN_ROUNDS = 3
DEFAULT_PRECISION = 0.03


def williams_period(n_arms: int) -> int:
    """Rounds in one balanced cycle of the arms' order (analysis/schedule.py's Williams
    design): n for an even number of arms, 2n for an odd one, 1 for a single arm."""
    if n_arms < 2:
        return 1
    return n_arms if n_arms % 2 == 0 else 2 * n_arms


def balanced_rounds(n_arms: int, minimum: int = DEFAULT_REPLICATES) -> int:
    """The default number of rounds: the fewest, at least `minimum`, that balance n arms'
    order (a multiple of the period): 6 for 2, 3 or 6 arms, 8 for 4, 10 for 5."""
    period = williams_period(n_arms)
    return -(-minimum // period) * period


MIN_BLOCK_MS = 100.0
DEFAULT_BATCH_SIZES = (32,)  # every door's: the command line, tcprof.run and the window
DEFAULT_REMOTE_PYTHON = "python3"
DEFAULT_STALL_TIMEOUT_S = 120.0  # see docs/methodology.md, "Stalls"
DEFAULT_RDZV_TIMEOUT_S = 300.0  # how long the nodes of a distributed arm wait for each other
COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
CUDAGRAPH_MODES = ("reduce-overhead", "max-autotune")  # Inductor wraps their graphs in CUDA graphs
# CUDA graph trees run a new graph once, record it on the next call and replay it from the
# third: the steps before the third are compile cost, never steady state.
CUDAGRAPH_WARMUP = 3


def records_cudagraphs(mode: object, skipped: bool) -> bool:
    """Whether an arm's warm-up records CUDA graphs: its mode uses them and Inductor did not
    skip them (on a CPU run it skips them all, and says so)."""
    return mode in CUDAGRAPH_MODES and not skipped


OPTIMIZERS = ("sgd", "adam", "adamw")
LOOPS = ("train", "inference")
AMP_DTYPES = ("bf16", "fp16")
DEVICES = ("cpu", "cuda", "mps", "auto")
PARALLEL = ("none", "ddp", "fsdp")  # how a distributed arm wraps the model (docs/methodology.md)
LOG_ARTIFACTS = (
    "graph_breaks",
    "recompiles",
    "recompiles_verbose",
    "guards",
    "dynamic",
    "perf_hints",
    "output_code",
)


DEBUG_PRESET_BACKEND = "aot_eager"
DEBUG_PRESET_LOGS = ("graph_breaks", "recompiles")
DEBUG_PRESET_TEXT = (
    'torch.compile has no mode="debug" (the seed guide\'s advice raises an error). The Debug preset '
    'uses backend="aot_eager" (TorchDynamo + AOTAutograd without Inductor, so errors are '
    "Dynamo's or your model's), logs graph breaks and recompiles (torch._logging.set_logs("
    "graph_breaks=True, recompiles=True)), sets torch._dynamo.config.verbose = True and runs a "
    "torch._dynamo.explain pre-pass."
)


class ConfigError(ValueError):
    """Bad user input, reported as a usage error (exit code 2) before anything runs."""


WEIGHT_SUFFIXES = (".safetensors", ".pt", ".pth", ".bin")

# A model given to tcprof.run as a Python class or callable (a notebook's, say) travels to the
# workers pickled by value (cloudpickle) in this file of the run's folder; a worker loads a model
# file with this suffix instead of importing it as Python.
PICKLED_MODEL_FILE = "model.cloudpickle"
PICKLED_MODEL_SUFFIX = ".cloudpickle"
