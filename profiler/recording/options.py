"""A run's options: `tcprof run`'s parser (made from their one declaration, declared.py, as
tcprof.run's keywords are, api/options.py), and the RunConfig they make (`config_from_options`,
from the values by name: the CLI's parsed command line and the API's checked keywords alike).

Kept apart from profiler/cli/main.py (which runs the commands) because the options grow with every
feature, and one place should say how each becomes a RunConfig field."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis import stopping
from tcprof.profiler.analysis.ladder import ladder_arms
from tcprof.profiler.config import (
    DEBUG_PRESET_BACKEND,
    DEBUG_PRESET_LOGS,
    PICKLED_MODEL_FILE,
    ArmSpec,
    ConfigError,
    DebugOptions,
    ModelSource,
    RunConfig,
    examples,
    parse_arms,
    parse_batch_sizes,
    run_arms,
)
from tcprof.profiler.recording.declared import add_options
from tcprof.profiler.recording.script_args import (
    check_no_script_options,
    phases,
    script_source,
)

DEFAULT_ARMS = "eager,inductor"
Options = Mapping[str, Any]  # a run's options by name (argparse's dest), as parsed


def add_run_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """`tcprof run`'s parser, made from the options' one declaration (declared.py)."""
    run = sub.add_parser(
        "run", help="profile a model file (or a built-in example) and print a summary"
    )
    add_options(run)
    return run


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
    if options["replicates"] is not None and (
        options["budget"] is not None or options["max_rounds"] is not None
    ):
        raise ConfigError(
            "--budget and --max-rounds end a run that stops when settled; --replicates fixes "
            "the rounds: give one or the other"
        )
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
        replicates=stopping.looks(len(run_arms(arms, options["control"])), options["max_rounds"])[
            -1
        ]
        if options["replicates"] is None
        else options["replicates"],
        stop_early=options["replicates"] is None,
        precision=options["precision"],
        budget_s=options["budget"],
        control=options["control"],
        threads=options["threads"],
        warm_cache=options["warm_cache"],
        portable_round=options["portable_round"],
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
