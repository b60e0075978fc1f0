"""Every option of a run, declared once as data: its flag, kind, type, default, choices, help and
the bound it is held to (config/limits.py). `tcprof run`'s parser is made from this tuple
(`add_options`), so are tcprof.run's keywords and their checks (api/options.py: a value is
converted here, with the parser's own one line when it is bad, no command line in between),
and the window's fields take their lowest values from the same bounds.

A value's type and choices are checked here (the parser's `type=` is `Option.convert`); its
bound is checked when the RunConfig is made (`validate`, by the same Limit), so every door
refuses `--steps 0` with "--steps must be at least 1"."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from tcprof.profiler.config import (
    AMP_DTYPES,
    COMPILE_MODES,
    CONTROL_LABEL,
    CONTROL_SUFFIX,
    CONTROLS,
    DEFAULT_BATCH_SIZES,
    DEFAULT_PRECISION,
    DEFAULT_RDZV_TIMEOUT_S,
    DEFAULT_REMOTE_PYTHON,
    DEFAULT_STALL_TIMEOUT_S,
    LOG_ARTIFACTS,
    LOOPS,
    MIN_BLOCK_MS,
    PARALLEL,
    STOP_MIN_ROUNDS,
    ConfigError,
    examples,
)
from tcprof.profiler.config.limits import LIMIT_OF, Limit
from tcprof.profiler.config.script import DEFAULT_NO_STEP_TIMEOUT_S, STEP_ON, WORK_UNITS
from tcprof.profiler.recording.tracking import EXPERIMENT_HELP, SPEC_HELP
from tcprof.profiler.team_store.address import STORE_HELP

Kind = Literal["value", "flag", "optional", "append", "positional"]

MODEL, ARMS, LOOP = "model", "arms", "loop"
REMOTE, DEBUG, OUTPUT = "remote host", "debug (compiled arms)", "output"
TRACKERS, SCRIPT = "trackers", "script (tcprof run [options] -- python train.py ARGS)"


@dataclass(frozen=True)
class Option:
    """One option of a run. kind: value (one value of `type`), flag (true when given),
    optional (a value, or `const` for the flag alone), append (repeatable: a list), positional
    (the model file). `limit`: the bound of the RunConfig field it sets (None: no bound).
    `keyword`: tcprof.run's name where it differs from the flag's."""

    flag: str
    group: str
    help: str | None = None
    kind: Kind = "value"
    type: type = str
    default: Any = None
    choices: tuple[Any, ...] | None = None
    const: Any = None
    metavar: str | None = None
    limit: Limit | None = None
    rename: str | None = None

    @property
    def dest(self) -> str:
        """The name a parsed value has (argparse's dest; config_from_options reads it)."""
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def keyword(self) -> str:
        return self.rename or self.dest

    def convert(self, value: object) -> Any:
        """`value` (the command line's text, or a Python value) as the option's type, within
        its choices; ConfigError with argparse's words ("invalid int value: 'many'")."""
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if self.type is str:
            if not isinstance(value, str):
                raise ConfigError(f"takes a value, not {value!r}")
            out: Any = value
        elif isinstance(value, str):
            try:
                out = self.type(value)
            except ValueError:
                raise ConfigError(f"invalid {self.type.__name__} value: {value!r}") from None
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"takes a value, not {value!r}")
        elif self.type is int and not isinstance(value, int):
            raise ConfigError(f"invalid int value: {value!r}")
        else:
            out = self.type(value)
        if self.choices is not None and out not in self.choices:
            chosen = ", ".join(map(repr, self.choices))
            raise ConfigError(f"invalid choice: {out!r} (choose from {chosen})")
        return out

    def from_text(self, text: str) -> Any:
        """argparse's `type=`: the text converted, or its one line as argparse reports it."""
        try:
            return self.convert(text)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    def problem(self, value: object) -> str | None:
        """The one line that refuses a converted value (its bound), None when it is good."""
        return self.limit.problem(value) if self.limit is not None else None


def _value(flag: str, group: str, help: str | None = None, **kw: Any) -> Option:
    return Option(flag, group, help, "value", **kw)


def _flag(flag: str, group: str, help: str | None = None) -> Option:
    return Option(flag, group, help, "flag", bool, False)


RUN_OPTIONS: tuple[Option, ...] = (
    # the model: a file or an example, the class or factory, its input
    Option("model_file", MODEL, "a Python file defining nn.Module classes", "positional"),
    _value(
        "--example", MODEL, f"a built-in example instead of a file ({', '.join(examples.ORDER)})"
    ),
    _value(
        "--model", MODEL, "the class or factory function in the file to use", rename="model_name"
    ),
    _value(
        "--factory", MODEL, 'an expression evaluated in the file, e.g. "GPT(GPTConfig(n_layer=2))"'
    ),
    _value("--input-shape", MODEL, "per-sample input shape: 10, 3x64x64, int:128 or int:128:VOCAB"),
    # the arms and what each compiles
    _value(
        "--arms",
        ARMS,
        "comma-separated backends (the first is the baseline), or per-arm options separated by ';': "
        "'eager; inductor:mode=max-autotune,dynamic=false; aot_eager:fullgraph=true,label=aot'; "
        "python=PATH runs an arm under another interpreter (another torch) "
        "(default: eager,inductor)",
    ),
    Option(
        "--ladder",
        ARMS,
        "the backend ladder instead of --arms: eager, torch.compile(backend='eager'), "
        "aot_eager, aot_eager_decomp_partition, inductor (or the comma-separated backends "
        "given), to find which compiler stage costs speed or accuracy",
        "optional",
        const="",
        metavar="STAGES",
    ),
    _value("--mode", ARMS, "mode for every inductor arm without its own", choices=COMPILE_MODES),
    _value(
        "--dynamic",
        ARMS,
        "dynamic= for every compiled arm without its own",
        choices=("none", "true", "false"),
    ),
    _flag("--fullgraph", ARMS, "fullgraph=True for every compiled arm"),
    _flag(
        "--apply-advice",
        ARMS,
        "after the run, add an arm with each fix tcprof can apply itself (mark_dynamic=0 "
        "for batch-size recompiles) and run it, to verify the advice",
    ),
    _value(
        "--block-module",
        ARMS,
        "the class of the model's repeated block, compiled alone by arms with "
        "regional=true (default: the children of the largest nn.ModuleList)",
        metavar="NAME",
    ),
    # what a step is: training or inference, mixed precision, memory format
    _value(
        "--loop",
        LOOP,
        "train: forward, loss, backward, optimizer step (default); inference: model.eval(), "
        "forward only under torch.inference_mode(), compiled and warmed in that mode",
        choices=LOOPS,
        default="train",
    ),
    _value(
        "--amp",
        LOOP,
        "mixed precision: torch.autocast(device_type, dtype) around forward and loss, a "
        "torch.amp.GradScaler for fp16 training; the accuracy check takes the dtype's tolerances",
        choices=AMP_DTYPES,
    ),
    _flag(
        "--channels-last",
        LOOP,
        "the model and every 4-D input in torch.channels_last memory format",
    ),
    _flag(
        "--compile-optimizer",
        LOOP,
        "compiled arms also compile optimizer.step() (torch.compile(fullgraph=False) with "
        "the arm's backend, as PyTorch's compiled-optimizer recipe does); train only",
    ),
    # how steps are measured: batch sizes, warm-up, blocks, rounds, the A/A control
    _value(
        "--batch-sizes",
        LOOP,
        "comma-separated, e.g. 32,64,128",
        default=",".join(str(b) for b in DEFAULT_BATCH_SIZES),
    ),
    _value(
        "--warmup",
        LOOP,
        "warm-up steps after the first step (default 5)",
        type=int,
        default=5,
        limit=LIMIT_OF["warmup"],
    ),
    _value(
        "--steps",
        LOOP,
        "measured steps per batch size (default 50)",
        type=int,
        default=50,
        limit=LIMIT_OF["steps"],
    ),
    _value(
        "--blocks",
        LOOP,
        "interleaved blocks the measured steps are split into",
        type=int,
        default=5,
        limit=LIMIT_OF["blocks"],
    ),
    _value(
        "--replicates",
        LOOP,
        "a fixed number of rounds, each with a fresh process per arm; the speedup interval "
        "covers the variation between processes (default: rounds go on until the answer is "
        f"settled, at least {STOP_MIN_ROUNDS} and only where the arms' order is balanced: 4, 6, "
        "for 2 arms; see --precision, --budget, --max-rounds)",
        type=int,
        limit=LIMIT_OF["replicates"],
    ),
    _value(
        "--precision",
        LOOP,
        "with no --replicates: stop once every speedup's interval is within this fraction "
        "either side (default %(default)g: ±3%%)",
        type=float,
        default=DEFAULT_PRECISION,
        limit=LIMIT_OF["precision"],
    ),
    _value(
        "--budget",
        LOOP,
        "with no --replicates: stop at a balanced round before the rounds take longer than "
        "this many seconds (the accuracy check follows; default: no budget)",
        type=float,
        metavar="SECONDS",
        limit=LIMIT_OF["budget_s"],
    ),
    _value(
        "--max-rounds",
        LOOP,
        "with no --replicates: the most rounds, raised to a balanced number (default: 6 for 2 "
        "arms, 12 for 3, 8 for 4, 20 for 5); never below the first balanced number at or "
        "above 3 (4 for 2 arms)",
        type=int,
    ),
    Option(
        "--control",
        LOOP,
        f"add A/A controls, identical twins that show the noise floor: eager (the default "
        f"when given alone: a second eager arm, {CONTROL_LABEL}), compiled (a twin of the first "
        f"compiled arm, named after it + {CONTROL_SUFFIX}), or both",
        "optional",
        const="eager",
        choices=CONTROLS,
        metavar="{" + ",".join(CONTROLS) + "}",
    ),
    _value(
        "--threads",
        LOOP,
        "torch.set_num_threads in every arm (default: physical cores)",
        type=int,
        limit=LIMIT_OF["threads"],
    ),
    _value(
        "--min-block-ms",
        LOOP,
        f"a timed block runs at least this long, adding steps (default {MIN_BLOCK_MS:g})",
        type=float,
        default=MIN_BLOCK_MS,
        limit=LIMIT_OF["min_block_ms"],
    ),
    _flag(
        "--warm-cache",
        LOOP,
        "compile against your own inductor caches instead of a fresh one per arm "
        "(no cold compile figure)",
    ),
    _flag(
        "--portable-round",
        LOOP,
        "also measure a fresh start from the cold round's portable compile-cache artifacts "
        "(round 2, with 3 or more rounds; on the CPU it costs most of a cold compile)",
    ),
    _flag("--sequential", LOOP, "one arm after another, one worker alive at a time"),
    # where arms run: the device, ranks per node and several nodes
    _value("--device", LOOP, default="cpu", choices=("cpu", "cuda", "mps", "auto")),
    _value(
        "--nproc",
        LOOP,
        "ranks per distributed arm, started by torchrun on this machine (gloo on cpu, "
        "nccl on cuda with one device per rank); the batch size is per rank",
        type=int,
        default=1,
        metavar="N",
        limit=LIMIT_OF["nproc"],
    ),
    _value(
        "--parallel",
        LOOP,
        "how a distributed arm wraps the model: ddp (DistributedDataParallel, then "
        "torch.compile) or fsdp (FSDP2 fully_shard per repeated block and the root, then "
        "torch.compile); per arm: parallel=ddp|fsdp|none",
        default="none",
        choices=PARALLEL,
    ),
    _value(
        "--nnodes",
        LOOP,
        "nodes (machines) per distributed arm: run the same command on each, differing "
        "only in --node-rank; node 0 runs the schedule and writes the session",
        type=int,
        default=1,
        metavar="M",
        limit=LIMIT_OF["nnodes"],
    ),
    _value(
        "--node-rank",
        LOOP,
        "this machine's node (0: the one that runs the schedule; the others follow it)",
        type=int,
        default=0,
        metavar="K",
    ),
    _value(
        "--rdzv-endpoint",
        LOOP,
        "node 0's address and a free port, reachable from every node (with --nnodes)",
        metavar="HOST:PORT",
    ),
    _value(
        "--rdzv-timeout",
        LOOP,
        "how long the nodes wait for each other at each arm's start (apart from "
        "--stall-timeout; default %(default)g s)",
        type=float,
        default=DEFAULT_RDZV_TIMEOUT_S,
        metavar="S",
        limit=LIMIT_OF["rdzv_timeout_s"],
    ),
    # the training step's optimizer and seed
    _value("--optimizer", LOOP, default="sgd", choices=("sgd", "adam", "adamw")),
    _value("--lr", LOOP, type=float, default=0.01, limit=LIMIT_OF["lr"]),
    _value("--seed", LOOP, type=int, default=0),
    # the accuracy check and the run's time limits
    _flag(
        "--no-accuracy",
        LOOP,
        "skip the untimed accuracy check (one more process per compiled arm)",
    ),
    _value(
        "--rtol",
        LOOP,
        "accuracy check: relative tolerance (default: the dtype's)",
        type=float,
        limit=LIMIT_OF["accuracy_rtol"],
    ),
    _value(
        "--atol",
        LOOP,
        "accuracy check: absolute tolerance (default: the dtype's)",
        type=float,
        limit=LIMIT_OF["accuracy_atol"],
    ),
    _value("--timeout", LOOP, "stop the whole run after this many seconds", type=float),
    _value(
        "--stall-timeout",
        LOOP,
        "end an arm whose phase makes no progress for S seconds (a busy compile counts as "
        f"progress; 0: never; default {DEFAULT_STALL_TIMEOUT_S:g})",
        type=float,
        default=DEFAULT_STALL_TIMEOUT_S,
        metavar="S",
        limit=LIMIT_OF["stall_timeout_s"],
    ),
    # the remote host
    _value(
        "--host",
        REMOTE,
        "run the arms' workers (or their torchrun) on this machine over ssh: anything ssh "
        "accepts (user@name, an alias of ~/.ssh/config); TCPROF_SSH_COMMAND replaces ssh",
    ),
    _value(
        "--remote-python",
        REMOTE,
        "the interpreter on --host that has tcprof and torch installed "
        f"(default {DEFAULT_REMOTE_PYTHON})",
        default=DEFAULT_REMOTE_PYTHON,
        metavar="PATH",
    ),
    # debug settings of the compiled arms
    _value(
        "--log", DEBUG, f"torch._logging artifacts to print: {', '.join(LOG_ARTIFACTS)}", default=""
    ),
    _flag("--verbose-dynamo", DEBUG, "torch._dynamo.config.verbose = True"),
    _flag(
        "--suppress-errors", DEBUG, "torch._dynamo.config.suppress_errors = True (hides failures)"
    ),
    _flag("--explain", DEBUG, "a torch._dynamo.explain pre-pass (untimed)"),
    _flag("--compile-debug", DEBUG, "TORCH_COMPILE_DEBUG=1 dump in the session folder"),
    _flag("--trace", DEBUG, "TORCH_TRACE log (+ tlparse report if installed)"),
    _flag("--memory-snapshot", DEBUG, "CUDA: torch.cuda.memory._record_memory_history snapshot"),
    _flag(
        "--debug-preset",
        DEBUG,
        "what the seed's mode='debug' should have been: backend aot_eager for compiled arms, "
        "graph-break and recompile logs, dynamo verbose, explain pre-pass",
    ),
    _flag("--fail-on-recompile", DEBUG, 'torch.compiler.set_stance("fail_on_recompile")'),
    # what a run writes and prints
    _value(
        "--out",
        OUTPUT,
        "folder for session.json, steps.csv and events.jsonl (default: a new session folder)",
    ),
    _flag(
        "--force",
        OUTPUT,
        "run into an --out folder that holds an earlier run, replacing its files",
    ),
    _value(
        "--profile-steps",
        OUTPUT,
        "after measuring, profile this many more steps with torch.profiler (Chrome trace + top operators)",
        type=int,
        default=0,
        limit=LIMIT_OF["profile_steps"],
    ),
    _value(
        "--weights",
        OUTPUT,
        "start every arm from this checkpoint (.safetensors, or .pt/.pth read with "
        "weights_only=True); _orig_mod. and module. prefixes are stripped, the load is strict",
        metavar="FILE",
    ),
    _value(
        "--save-weights",
        OUTPUT,
        "save each arm's trained state_dict (without the compiled _orig_mod. prefix), verified by a strict load",
        choices=("safetensors", "pt"),
    ),
    _flag("--quiet", OUTPUT, "no progress on the terminal"),
    _flag("--json", OUTPUT, "print session.json instead of the table"),
    _flag("--show-output", OUTPUT, "echo the model's own printed output"),
    # the trackers, applied once the session is saved (recording/tracking.py)
    Option(
        "--log-to",
        TRACKERS,
        f"once the session is saved, log it to a tracker (repeatable): {SPEC_HELP}; "
        "needs pip install tcprof[tensorboard], tcprof[mlflow] or tcprof[wandb]",
        "append",
        metavar="SPEC",
    ),
    _value("--mlflow-experiment", TRACKERS, EXPERIMENT_HELP, metavar="NAME"),
    _value("--store", TRACKERS, STORE_HELP, metavar="URI"),
    # a script's own options (recording/script_args.py)
    _value(
        "--sweep",
        SCRIPT,
        "one configuration per value of {NAME} in the script's arguments, run as the "
        "batch-size phases (e.g. --sweep batch_size=8,16 with --batch_size={batch_size}); "
        "{batch_size} also takes --batch-sizes",
        metavar="NAME=V1,V2",
    ),
    _value(
        "--step-on",
        SCRIPT,
        "what a step of the script is: an optimizer step (default; gradient accumulation "
        "is one step) or a forward call of its model (an inference script)",
        choices=STEP_ON,
        default="optimizer",
    ),
    _value(
        "--no-step-timeout",
        SCRIPT,
        "a script with no step after this long of its own time (its compiles not "
        "counted) is not a training script (default %(default)g s)",
        type=float,
        default=DEFAULT_NO_STEP_TIMEOUT_S,
        metavar="S",
    ),
    _value(
        "--unit",
        SCRIPT,
        "what the script's throughput counts: samples (the batch's leading dimension), "
        "tokens (batch x sequence of the token ids its model is given, padding counted) or "
        "steps; each summed over a step's micro-batches (default: tokens where the model is "
        "given token ids, else samples)",
        choices=WORK_UNITS,
    ),
)


def keywords() -> Iterator[Option]:
    """The options tcprof.run takes as keywords (all but the model file: its `model=`)."""
    return (o for o in RUN_OPTIONS if o.kind != "positional")


def add_options(parser: argparse.ArgumentParser) -> None:
    """Every declared option on `parser` (`tcprof run`'s), in their groups, in order."""
    groups: dict[str, argparse._ArgumentGroup] = {}
    for option in RUN_OPTIONS:
        if option.group not in groups:
            groups[option.group] = parser.add_argument_group(option.group)
        group = groups[option.group]
        if option.kind == "positional":
            group.add_argument(option.flag, nargs="?", help=option.help)
        elif option.kind == "flag":
            group.add_argument(option.flag, action="store_true", help=option.help)
        elif option.kind == "append":
            group.add_argument(
                option.flag,
                action="append",
                type=option.from_text,
                metavar=option.metavar,
                help=option.help,
            )
        else:
            group.add_argument(
                option.flag,
                nargs="?" if option.kind == "optional" else None,
                const=option.const,
                type=option.from_text,
                default=option.default,
                choices=option.choices,
                metavar=option.metavar,
                help=option.help,
            )
