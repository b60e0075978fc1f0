"""What to run, frozen before any worker starts: the choices and backends, the run's model and
its checks, the text parsers (arms, shapes, a script's command), and a session's setup in words
(`wording`, for the reports). Two neighbours sit here because every floor above (`process`,
`store`, `run`, `report`) and the window need them and nothing lower would do: `paths` (the
home folder, where sessions go, and the files the program ships with) and `examples` (the
built-in models).

Pure data and parsing (no torch): the CLI, the window and saved sessions all build the same
`RunConfig`, and a worker receives it as JSON. Importing it loads only the standard library;
`resolve_threads` asks psutil (a dependency of tcprof) for the host's cores when it is called.
The names below are the package's face; `backends`, `examples` and `paths` are imported from
their own modules.
"""

from tcprof.profiler.config.arm import ArmSpec
from tcprof.profiler.config.arm_text import interpreter_path, parse_arm, parse_arms
from tcprof.profiler.config.choices import (
    AMP_DTYPES,
    COMPILE_MODES,
    CONTROL_LABEL,
    CONTROL_SUFFIX,
    CONTROLS,
    CUDAGRAPH_MODES,
    CUDAGRAPH_WARMUP,
    DEBUG_PRESET_BACKEND,
    DEBUG_PRESET_LOGS,
    DEBUG_PRESET_TEXT,
    DEFAULT_BATCH_SIZES,
    DEFAULT_PRECISION,
    DEFAULT_RDZV_TIMEOUT_S,
    DEFAULT_REMOTE_PYTHON,
    DEFAULT_REPLICATES,
    DEFAULT_STALL_TIMEOUT_S,
    DEVICES,
    DYNAMO_EAGER,
    LOG_ARTIFACTS,
    LOOPS,
    MIN_BLOCK_MS,
    OPTIMIZERS,
    PARALLEL,
    PICKLED_MODEL_FILE,
    PICKLED_MODEL_SUFFIX,
    STOP_MIN_ROUNDS,
    WEIGHT_SUFFIXES,
    ConfigError,
    balanced_rounds,
    records_cudagraphs,
    williams_period,
)
from tcprof.profiler.config.controls import (
    control_arms,
    control_twins,
    normalize_control,
    run_arms,
)
from tcprof.profiler.config.model import (
    DebugOptions,
    ModelSource,
    RunConfig,
    arm_artifacts_dir,
    check_host,
    check_loop,
    check_nodes,
    check_output_folder,
    check_parallel,
    check_weights_file,
    validate,
)
from tcprof.profiler.config.parse import (
    InputShape,
    parse_batch_sizes,
    parse_endpoint,
    parse_input_shape,
)
from tcprof.profiler.config.saved_arms import arms_of, controls_of, world_size_of
from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.config.threads import resolve_threads, threads_per_process
from tcprof.profiler.config.wording import (
    loop_text,
    where_text,
)

__all__ = [
    "DEFAULT_BATCH_SIZES",
    "DYNAMO_EAGER",
    "CONTROL_LABEL",
    "CONTROL_SUFFIX",
    "CONTROLS",
    "DEFAULT_PRECISION",
    "DEFAULT_REPLICATES",
    "STOP_MIN_ROUNDS",
    "balanced_rounds",
    "williams_period",
    "MIN_BLOCK_MS",
    "DEFAULT_REMOTE_PYTHON",
    "DEFAULT_STALL_TIMEOUT_S",
    "DEFAULT_RDZV_TIMEOUT_S",
    "COMPILE_MODES",
    "CUDAGRAPH_MODES",
    "CUDAGRAPH_WARMUP",
    "records_cudagraphs",
    "OPTIMIZERS",
    "LOOPS",
    "AMP_DTYPES",
    "DEVICES",
    "PARALLEL",
    "LOG_ARTIFACTS",
    "DEBUG_PRESET_BACKEND",
    "DEBUG_PRESET_LOGS",
    "DEBUG_PRESET_TEXT",
    "ConfigError",
    "WEIGHT_SUFFIXES",
    "PICKLED_MODEL_FILE",
    "PICKLED_MODEL_SUFFIX",
    "ArmSpec",
    "ModelSource",
    "ScriptSource",
    "DebugOptions",
    "RunConfig",
    "run_arms",
    "control_arms",
    "control_twins",
    "controls_of",
    "normalize_control",
    "arms_of",
    "world_size_of",
    "resolve_threads",
    "threads_per_process",
    "validate",
    "check_loop",
    "check_parallel",
    "check_nodes",
    "check_output_folder",
    "check_host",
    "check_weights_file",
    "arm_artifacts_dir",
    "parse_endpoint",
    "parse_batch_sizes",
    "InputShape",
    "parse_input_shape",
    "parse_arms",
    "interpreter_path",
    "parse_arm",
    "where_text",
    "loop_text",
]
