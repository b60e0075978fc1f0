"""A run's options, declared once (as `tcprof run`'s parser: the CLI parses a command line with
it, the Python API turns its keywords into one and checks them with it, api/options.py), and the
RunConfig they make (`config_from_options`, from the parsed values by name: the CLI's and the
API's alike).

Kept apart from profiler/cli/main.py (which runs the commands) because the options grow with every
feature, and one place should say how each becomes a RunConfig field."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis.ladder import ladder_arms
from tcprof.profiler.config import (
    AMP_DTYPES,
    COMPILE_MODES,
    CONTROL_LABEL,
    CONTROL_SUFFIX,
    CONTROLS,
    DEBUG_PRESET_BACKEND,
    DEBUG_PRESET_LOGS,
    DEFAULT_RDZV_TIMEOUT_S,
    DEFAULT_REMOTE_PYTHON,
    DEFAULT_REPLICATES,
    DEFAULT_STALL_TIMEOUT_S,
    LOG_ARTIFACTS,
    LOOPS,
    MIN_BLOCK_MS,
    PARALLEL,
    PICKLED_MODEL_FILE,
    ArmSpec,
    ConfigError,
    DebugOptions,
    ModelSource,
    RunConfig,
    examples,
    parse_arms,
    parse_batch_sizes,
)
from tcprof.profiler.recording.script_args import (
    add_script_options,
    check_no_script_options,
    phases,
    script_source,
)
from tcprof.profiler.recording.tracking import add_tracker_options

DEFAULT_ARMS = "eager,inductor"
Options = Mapping[str, Any]  # a run's options by name (argparse's dest), as parsed


def add_run_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    run = sub.add_parser(
        "run", help="profile a model file (or a built-in example) and print a summary"
    )
    src = run.add_argument_group("model")
    _model_options(src)
    arms = run.add_argument_group("arms")
    _arms_options(arms)
    loop = run.add_argument_group("loop")
    _loop_kind(loop)
    _schedule(loop)
    _processes(loop)
    _training(loop)
    _checks(loop)
    add_remote_options(run)
    dbg = run.add_argument_group("debug (compiled arms)")
    _debug_options(dbg)
    out = run.add_argument_group("output")
    _output_options(out)
    add_tracker_options(run.add_argument_group("trackers"))
    add_script_options(run)
    return run


def _model_options(src: argparse._ArgumentGroup) -> None:
    """The model: a file or an example, the class or factory, its input."""
    src.add_argument("model_file", nargs="?", help="a Python file defining nn.Module classes")
    src.add_argument(
        "--example", help=f"a built-in example instead of a file ({', '.join(examples.ORDER)})"
    )
    src.add_argument("--model", help="the class or factory function in the file to use")
    src.add_argument(
        "--factory", help='an expression evaluated in the file, e.g. "GPT(GPTConfig(n_layer=2))"'
    )
    src.add_argument(
        "--input-shape", help="per-sample input shape: 10, 3x64x64, int:128 or int:128:VOCAB"
    )


def _arms_options(arms: argparse._ArgumentGroup) -> None:
    """The arms and what each compiles."""
    arms.add_argument(
        "--arms",
        help="comma-separated backends (the first is the baseline), or per-arm options separated by ';': "
        "'eager; inductor:mode=max-autotune,dynamic=false; aot_eager:fullgraph=true,label=aot'; "
        "python=PATH runs an arm under another interpreter (another torch) "
        "(default: eager,inductor)",
    )
    arms.add_argument(
        "--ladder",
        nargs="?",
        const="",
        metavar="STAGES",
        help="the backend ladder instead of --arms: eager, torch.compile(backend='eager'), "
        "aot_eager, aot_eager_decomp_partition, inductor (or the comma-separated backends "
        "given), to find which compiler stage costs speed or accuracy",
    )
    arms.add_argument(
        "--mode", choices=COMPILE_MODES, help="mode for every inductor arm without its own"
    )
    arms.add_argument(
        "--dynamic",
        choices=("none", "true", "false"),
        help="dynamic= for every compiled arm without its own",
    )
    arms.add_argument(
        "--fullgraph", action="store_true", help="fullgraph=True for every compiled arm"
    )
    arms.add_argument(
        "--apply-advice",
        action="store_true",
        help="after the run, add an arm with each fix tcprof can apply itself (mark_dynamic=0 "
        "for batch-size recompiles) and run it, to verify the advice",
    )
    arms.add_argument(
        "--block-module",
        metavar="NAME",
        help="the class of the model's repeated block, compiled alone by arms with "
        "regional=true (default: the children of the largest nn.ModuleList)",
    )


def _loop_kind(loop: argparse._ArgumentGroup) -> None:
    """What a step is: training or inference, mixed precision, memory format."""
    loop.add_argument(
        "--loop",
        choices=LOOPS,
        default="train",
        help="train: forward, loss, backward, optimizer step (default); inference: model.eval(), "
        "forward only under torch.inference_mode(), compiled and warmed in that mode",
    )
    loop.add_argument(
        "--amp",
        choices=AMP_DTYPES,
        help="mixed precision: torch.autocast(device_type, dtype) around forward and loss, a "
        "torch.amp.GradScaler for fp16 training; the accuracy check takes the dtype's tolerances",
    )
    loop.add_argument(
        "--channels-last",
        action="store_true",
        help="the model and every 4-D input in torch.channels_last memory format",
    )
    loop.add_argument(
        "--compile-optimizer",
        action="store_true",
        help="compiled arms also compile optimizer.step() (torch.compile(fullgraph=False) with "
        "the arm's backend, as PyTorch's compiled-optimizer recipe does); train only",
    )


def _schedule(loop: argparse._ArgumentGroup) -> None:
    """How steps are measured: batch sizes, warm-up, blocks, rounds, the A/A control."""
    loop.add_argument("--batch-sizes", default="32", help="comma-separated, e.g. 32,64,128")
    loop.add_argument(
        "--warmup", type=int, default=5, help="warm-up steps after the first step (default 5)"
    )
    loop.add_argument(
        "--steps", type=int, default=50, help="measured steps per batch size (default 50)"
    )
    loop.add_argument(
        "--blocks", type=int, default=5, help="interleaved blocks the measured steps are split into"
    )
    loop.add_argument(
        "--replicates",
        type=int,
        default=DEFAULT_REPLICATES,
        help="rounds, each with a fresh process per arm; the speedup interval covers the "
        f"variation between processes (default {DEFAULT_REPLICATES})",
    )
    loop.add_argument(
        "--control",
        nargs="?",
        const="eager",
        choices=CONTROLS,
        metavar="{" + ",".join(CONTROLS) + "}",
        help=f"add A/A controls, identical twins that show the noise floor: eager (the default "
        f"when given alone: a second eager arm, {CONTROL_LABEL}), compiled (a twin of the first "
        f"compiled arm, named after it + {CONTROL_SUFFIX}), or both",
    )
    loop.add_argument(
        "--threads",
        type=int,
        help="torch.set_num_threads in every arm (default: physical cores)",
    )
    loop.add_argument(
        "--min-block-ms",
        type=float,
        default=MIN_BLOCK_MS,
        help=f"a timed block runs at least this long, adding steps (default {MIN_BLOCK_MS:g})",
    )
    loop.add_argument(
        "--warm-cache",
        action="store_true",
        help="compile against your own inductor caches instead of a fresh one per arm "
        "(no cold compile figure)",
    )
    loop.add_argument(
        "--sequential",
        action="store_true",
        help="one arm after another, one worker alive at a time",
    )


def _processes(loop: argparse._ArgumentGroup) -> None:
    """Where arms run: the device, ranks per node and several nodes."""
    loop.add_argument("--device", default="cpu", choices=("cpu", "cuda", "mps", "auto"))
    loop.add_argument(
        "--nproc",
        type=int,
        default=1,
        metavar="N",
        help="ranks per distributed arm, started by torchrun on this machine (gloo on cpu, "
        "nccl on cuda with one device per rank); the batch size is per rank",
    )
    loop.add_argument(
        "--parallel",
        default="none",
        choices=PARALLEL,
        help="how a distributed arm wraps the model: ddp (DistributedDataParallel, then "
        "torch.compile) or fsdp (FSDP2 fully_shard per repeated block and the root, then "
        "torch.compile); per arm: parallel=ddp|fsdp|none",
    )
    loop.add_argument(
        "--nnodes",
        type=int,
        default=1,
        metavar="M",
        help="nodes (machines) per distributed arm: run the same command on each, differing "
        "only in --node-rank; node 0 runs the schedule and writes the session",
    )
    loop.add_argument(
        "--node-rank",
        type=int,
        default=0,
        metavar="K",
        help="this machine's node (0: the one that runs the schedule; the others follow it)",
    )
    loop.add_argument(
        "--rdzv-endpoint",
        metavar="HOST:PORT",
        help="node 0's address and a free port, reachable from every node (with --nnodes)",
    )
    loop.add_argument(
        "--rdzv-timeout",
        type=float,
        default=DEFAULT_RDZV_TIMEOUT_S,
        metavar="S",
        help="how long the nodes wait for each other at each arm's start (apart from "
        "--stall-timeout; default %(default)g s)",
    )


def _training(loop: argparse._ArgumentGroup) -> None:
    """The training step's optimizer and seed."""
    loop.add_argument("--optimizer", default="sgd", choices=("sgd", "adam", "adamw"))
    loop.add_argument("--lr", type=float, default=0.01)
    loop.add_argument("--seed", type=int, default=0)


def _checks(loop: argparse._ArgumentGroup) -> None:
    """The accuracy check and the run's time limits."""
    loop.add_argument(
        "--no-accuracy",
        action="store_true",
        help="skip the untimed accuracy check (one more process per compiled arm)",
    )
    loop.add_argument(
        "--rtol", type=float, help="accuracy check: relative tolerance (default: the dtype's)"
    )
    loop.add_argument(
        "--atol", type=float, help="accuracy check: absolute tolerance (default: the dtype's)"
    )
    loop.add_argument("--timeout", type=float, help="stop the whole run after this many seconds")
    loop.add_argument(
        "--stall-timeout",
        type=float,
        default=DEFAULT_STALL_TIMEOUT_S,
        metavar="S",
        help="end an arm whose phase makes no progress for S seconds (a busy compile counts as "
        f"progress; 0: never; default {DEFAULT_STALL_TIMEOUT_S:g})",
    )


def _debug_options(dbg: argparse._ArgumentGroup) -> None:
    """Debug settings of the compiled arms."""
    dbg.add_argument(
        "--log", default="", help=f"torch._logging artifacts to print: {', '.join(LOG_ARTIFACTS)}"
    )
    dbg.add_argument(
        "--verbose-dynamo", action="store_true", help="torch._dynamo.config.verbose = True"
    )
    dbg.add_argument(
        "--suppress-errors",
        action="store_true",
        help="torch._dynamo.config.suppress_errors = True (hides failures)",
    )
    dbg.add_argument(
        "--explain", action="store_true", help="a torch._dynamo.explain pre-pass (untimed)"
    )
    dbg.add_argument(
        "--compile-debug",
        action="store_true",
        help="TORCH_COMPILE_DEBUG=1 dump in the session folder",
    )
    dbg.add_argument(
        "--trace", action="store_true", help="TORCH_TRACE log (+ tlparse report if installed)"
    )
    dbg.add_argument(
        "--memory-snapshot",
        action="store_true",
        help="CUDA: torch.cuda.memory._record_memory_history snapshot",
    )
    dbg.add_argument(
        "--debug-preset",
        action="store_true",
        help="what the seed's mode='debug' should have been: backend aot_eager for compiled arms, "
        "graph-break and recompile logs, dynamo verbose, explain pre-pass",
    )
    dbg.add_argument(
        "--fail-on-recompile",
        action="store_true",
        help='torch.compiler.set_stance("fail_on_recompile")',
    )


def _output_options(out: argparse._ArgumentGroup) -> None:
    """What a run writes and prints."""
    out.add_argument(
        "--out",
        help="folder for session.json, steps.csv and events.jsonl (default: a new session folder)",
    )
    out.add_argument(
        "--force",
        action="store_true",
        help="run into an --out folder that holds an earlier run, replacing its files",
    )
    out.add_argument(
        "--profile-steps",
        type=int,
        default=0,
        help="after measuring, profile this many more steps with torch.profiler (Chrome trace + top operators)",
    )
    out.add_argument(
        "--weights",
        metavar="FILE",
        help="start every arm from this checkpoint (.safetensors, or .pt/.pth read with "
        "weights_only=True); _orig_mod. and module. prefixes are stripped, the load is strict",
    )
    out.add_argument(
        "--save-weights",
        choices=("safetensors", "pt"),
        help="save each arm's trained state_dict (without the compiled _orig_mod. prefix), verified by a strict load",
    )
    out.add_argument("--quiet", action="store_true", help="no progress on the terminal")
    out.add_argument("--json", action="store_true", help="print session.json instead of the table")
    out.add_argument(
        "--show-output", action="store_true", help="echo the model's own printed output"
    )


def add_remote_options(run: argparse.ArgumentParser) -> None:
    remote = run.add_argument_group("remote host")
    remote.add_argument(
        "--host",
        help="run the arms' workers (or their torchrun) on this machine over ssh: anything ssh "
        "accepts (user@name, an alias of ~/.ssh/config); TCPROF_SSH_COMMAND replaces ssh",
    )
    remote.add_argument(
        "--remote-python",
        default=DEFAULT_REMOTE_PYTHON,
        metavar="PATH",
        help="the interpreter on --host that has tcprof and torch installed "
        f"(default {DEFAULT_REMOTE_PYTHON})",
    )


def _apply_defaults(arms: tuple[ArmSpec, ...], options: Options) -> tuple[ArmSpec, ...]:
    out = []
    for a in arms:
        if a.compiled:
            kw = a.to_dict()
            if options["mode"] and a.mode is None and a.backend == "inductor":
                kw["mode"] = options["mode"]
            if options["dynamic"] and a.dynamic is None:
                kw["dynamic"] = {"none": None, "true": True, "false": False}[options["dynamic"]]
            if options["fullgraph"]:
                kw["fullgraph"] = True
            a = ArmSpec.from_dict(kw)
        out.append(a)
    return tuple(out)


def _check_model_file(path: Path, given: str) -> None:
    """A model file that is not there is a usage error before any folder or worker exists
    (a worker would only say so after its start, every arm of it)."""
    if path.is_dir():
        raise ConfigError(f"{given} is a folder: give the model file (a .py defining the model)")
    if not path.is_file():
        raise ConfigError(f"model file not found: {given}")


def config_from_options(options: Options, *, shipped: str | None = None) -> RunConfig:
    """The RunConfig of a run's parsed options, by name (every option of `tcprof run`; the
    CLI's parsed command line, the API's checked keywords). options["script_command"]: the
    command after `--` (main.py splits it off), or None. `shipped`: the name of a model given
    as a Python object, written into the run's folder later (its file, PICKLED_MODEL_FILE)."""
    command = options.get("script_command")
    script = script_source(options, command) if command is not None else None
    if script is None:
        check_no_script_options(options)
    given = bool(options["model_file"]) + bool(options["example"]) + (shipped is not None)
    if script is None and given != 1:
        raise ConfigError(
            "give a model file or --example NAME (one of them), or a script after --: "
            "tcprof run [options] -- python train.py ARGS"
        )
    batch_sizes = parse_batch_sizes(options["batch_sizes"]) if script is None else (1,)
    if script is not None:
        batch_sizes, script = phases(options, script)
        path = script.path
    elif shipped is not None:
        path = PICKLED_MODEL_FILE
    elif options["example"]:
        path = str(examples.example_path(options["example"]))
    else:
        path = str(Path(options["model_file"]).expanduser().absolute())
        _check_model_file(Path(path), options["model_file"])
    logs = tuple(a.strip() for a in options["log"].split(",") if a.strip())
    if options["ladder"] is not None and options["arms"]:
        raise ConfigError("give --arms or --ladder, not both")
    if options["ladder"] is not None:
        arms = _apply_defaults(ladder_arms(options["ladder"]), options)
    else:
        arms = _apply_defaults(parse_arms(options["arms"] or DEFAULT_ARMS), options)
    if options["debug_preset"] and not any(a.backend == DEBUG_PRESET_BACKEND for a in arms):
        arms = (*arms, ArmSpec(DEBUG_PRESET_BACKEND, label=f"debug ({DEBUG_PRESET_BACKEND})"))
    return RunConfig(
        source=ModelSource(
            path=path,
            model=shipped or options["model"],
            factory=options["factory"],
            input_shape=options["input_shape"],
        ),
        arms=arms,
        batch_sizes=batch_sizes,
        warmup=options["warmup"],
        steps=options["steps"],
        blocks=options["blocks"],
        sequential=options["sequential"],
        device=options["device"],
        optimizer=options["optimizer"],
        lr=options["lr"],
        seed=options["seed"],
        replicates=options["replicates"],
        control=options["control"],
        threads=options["threads"],
        warm_cache=options["warm_cache"],
        min_block_ms=options["min_block_ms"],
        accuracy=not options["no_accuracy"],
        accuracy_rtol=options["rtol"],
        accuracy_atol=options["atol"],
        debug=DebugOptions(
            logs=tuple(
                dict.fromkeys(logs + (DEBUG_PRESET_LOGS if options["debug_preset"] else ()))
            ),
            verbose=options["verbose_dynamo"] or options["debug_preset"],
            suppress_errors=options["suppress_errors"],
            fail_on_recompile=options["fail_on_recompile"],
            explain=options["explain"] or options["debug_preset"],
            compile_debug=options["compile_debug"],
            trace=options["trace"],
            memory_snapshot=options["memory_snapshot"],
        ),
        timeout_s=options["timeout"],
        stall_timeout_s=options["stall_timeout"] or None,
        ladder=options["ladder"] is not None,
        apply_advice=options["apply_advice"],
        block_module=options["block_module"],
        weights=str(Path(options["weights"]).expanduser().resolve())
        if options["weights"]
        else None,
        save_weights=options["save_weights"],
        host=options["host"] or None,
        remote_python=options["remote_python"],
        profile_steps=options["profile_steps"],
        loop=options["loop"],
        amp=options["amp"],
        channels_last=options["channels_last"],
        compile_optimizer=options["compile_optimizer"],
        nproc=options["nproc"],
        parallel=options["parallel"],
        nnodes=options["nnodes"],
        node_rank=options["node_rank"],
        rdzv_endpoint=options["rdzv_endpoint"],
        rdzv_timeout_s=options["rdzv_timeout"],
        script=script,
    )
