"""`tcprof.run`: a run from Python through the engine's one front door, returning the Session.

The keywords are a run's options (api/options.py, from their one declaration in
recording/options.py, which also makes the RunConfig), and the run is recorded by the one recorded
run every door uses (recording/entry.py: a locked folder, the live events.jsonl, session.json,
steps.csv, the reports and the trackers), so the folder of a call equals the CLI's and the window's
for the same options, bar timestamps, paths and ids. A model given as a class or a callable is
shipped to the workers by value (api/shipping.py). Ctrl+C (KeyboardInterrupt) ends the workers and
returns what was measured.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import sys
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tcprof.profiler.api import options as run_options
from tcprof.profiler.api.progress import (
    ProgressChoice,
    RunProgress,
    TcprofWarning,
    check_progress,
)
from tcprof.profiler.api.session import Session, load
from tcprof.profiler.api.shipping import Shipment, pack
from tcprof.profiler.config import ConfigError, RunConfig
from tcprof.profiler.protocol.types import Event
from tcprof.profiler.recording.entry import Recording
from tcprof.profiler.recording.options import Options, config_from_options
from tcprof.profiler.recording.tracking import check_tracker_options

ModelLike = str | os.PathLike[str] | Callable[[], Any]


def run(
    model: ModelLike | None = None,
    *,
    make_batch: Callable[[int, Any], Any] | None = None,
    progress: ProgressChoice = None,
    **options: Any,
) -> Session:
    """Profile `model` as `tcprof run` does and return the Session.

    model: a model file's path, or an nn.Module class, a callable that builds the module, or a
    module (each arm starts from a copy), shipped to the workers by value (a class defined in
    a notebook cell works); None with
    `example=NAME`. make_batch(batch_size, device) -> (inputs, targets): the inputs of a model
    given as a class or callable. progress: True (the default, unless quiet=True) shows a
    progress line, or a live display in a notebook; False none; a callable is given a
    `Progress` at every event.

    Every option of `tcprof run` is a keyword with the same name and default (`arms`,
    `batch_sizes` and `out` also take a list, an int or a Path; `log_to` a spec or a list of
    them, as `--log-to` is given once per tracker); the CLI's `--model NAME` is `model_name`. ValueError, with the CLI's message, for a bad value; TypeError for an
    unknown keyword; OSError when the run's folder cannot be used.
    """
    values = dict(options)
    if isinstance(values.get("arms"), (list, tuple)):
        values["arms"] = "; ".join(str(a) for a in values["arms"])
    sizes = values.get("batch_sizes")
    if isinstance(sizes, int) and not isinstance(sizes, bool):
        values["batch_sizes"] = str(sizes)
    elif isinstance(sizes, (list, tuple)):
        values["batch_sizes"] = ",".join(str(b) for b in sizes)
    shipped: Callable[[], Any] | None = None
    model_file = None
    if isinstance(model, (str, os.PathLike)):
        model_file = os.fspath(model)
    elif callable(model):
        shipped = model
    elif model is not None:
        raise TypeError(f"model= is a file, a class or a callable, not {type(model).__name__}")
    checked = run_options.checked(values, model_file)
    return run_parsed(checked, shipped, make_batch=make_batch, progress=progress)


def _signature_and_doc() -> None:
    """tcprof.run's signature and docstring list every option of `tcprof run`."""
    run.__signature__ = run_options.signature(inspect.signature(run))  # type: ignore[attr-defined]
    run.__doc__ = f"{run.__doc__}\n    Options (keyword = default: what it does):\n\n" + (
        run_options.options_help()
    )


_signature_and_doc()


def run_parsed(
    args: Options,
    model: Callable[[], Any] | None = None,
    *,
    make_batch: Callable[[int, Any], Any] | None = None,
    progress: ProgressChoice = None,
) -> Session:
    """A run from `tcprof run`'s options by name (tcprof.run's checked keywords, or the
    %tcprof magic's parsed line);
    `model` a Python object to ship instead of a model file."""
    check_progress(progress)
    tracker_problem = check_tracker_options(args["log_to"], args["mlflow_experiment"])
    if tracker_problem:  # before the run, as the CLI checks them
        raise ConfigError(tracker_problem)
    config, shipment = _config(args, model, make_batch)

    def ship(config: RunConfig, folder: Path) -> RunConfig:  # into the run's own folder
        if shipment is None:
            return config
        source = dataclasses.replace(config.source, path=str(shipment.write(folder)))
        return dataclasses.replace(config, source=source)

    shown = RunProgress(config, progress, args["quiet"], args["show_output"])
    try:
        recording = Recording(
            config,
            out=args["out"],
            force=args["force"],
            listeners=[shown],
            on_log_failure=_warn_event,
            prepare=ship,
            trackers=args["log_to"] or (),
            mlflow_experiment=args["mlflow_experiment"],
            store=args["store"],
        )
    except BaseException:
        shown.close("failed")  # nothing started
        raise
    with recording:
        try:
            recording.run()
        finally:
            shown.close(recording.session.status)
        ending = recording.save()
        if ending.refusal is not None:  # found wrong before any arm ran, as the CLI refuses it
            raise ConfigError(ending.refusal)
        problems = list(ending.problems)
        if ending.folder is not None:
            problems += _tracker_lines(recording, ending.folder, args["quiet"])
    for line in problems:
        _warn(line)
    full = ending.session
    if args["json"]:
        print(json.dumps({k: v for k, v in full.items() if k not in ("samples", "logs")}, indent=1))
    return load(ending.folder) if ending.folder is not None else Session.from_dict(full)


def _config(
    options: Mapping[str, Any],
    model: Callable[[], Any] | None,
    make_batch: Callable[[int, Any], Any] | None,
) -> tuple[RunConfig, Shipment | None]:
    """The RunConfig of the options (a run's one declaration); for a Python model, its
    shipment too (made before any folder exists, so a model that cannot travel creates
    nothing)."""
    if make_batch is not None and model is None:
        raise ValueError(
            "make_batch= goes with a model given as a class or callable (a model file "
            "defines its own make_batch)"
        )
    if make_batch is not None and not callable(make_batch):
        raise ValueError(f"make_batch= is a callable, not {type(make_batch).__name__}")
    if model is None:
        config = config_from_options(options)
        shipment = None
    else:
        if options["model_file"] or options["example"]:
            raise ConfigError("give the model as a Python object or as a file, not both")
        if options["model"] or options["factory"]:
            raise ConfigError(
                "model_name= and factory= choose a model in a file; a class or callable "
                "given as model= is the model itself"
            )
        shipment = pack(model, make_batch)
        config = config_from_options(options, shipped=shipment.name)
        if config.host or config.nnodes > 1:
            raise ConfigError(
                "a model given as a Python object runs on this machine: --host and --nnodes "
                "need a model file"
            )
    if config.node_rank > 0:
        raise ConfigError(
            "node_rank > 0 follows node 0 from the command line: tcprof run ... --node-rank "
            f"{config.node_rank}"
        )
    return config, shipment


def _tracker_lines(recording: Recording, folder: Path, quiet: bool) -> list[str]:
    """The saved session logged to the trackers asked for, each one logged said on stderr
    unless quiet; a warning line per problem."""

    def logged(line: str) -> None:
        if not quiet:
            print(f"tcprof: {line}", file=sys.stderr)

    outcome = recording.log_to_trackers(on_logged=logged)
    if outcome.interrupted:
        return [f"logging to the trackers interrupted; the session is saved in {folder}"]
    if outcome.unreadable is not None:  # the session just saved could not be read back
        return [f"could not log the session to the trackers: {outcome.unreadable}"]
    lines = outcome.warnings
    lines += [f"log it again with tcprof log-to SPEC {folder}"] if lines else []
    sent = recording.send_to_store(on_logged=logged)
    return lines + ([sent.warning] if sent.warning else [])


def _warn(line: str) -> None:
    warnings.warn(line, TcprofWarning, stacklevel=3)


def _warn_event(event: Event) -> None:
    _warn(str(event.get("text")))
