"""`tcprof.run`: a run from Python over the CLI's engine, returning the Session.

The arguments become `tcprof run`'s (api/options.py), the RunConfig is the CLI's
(cli/run_args.config_from_args), and the run is recorded as the CLI records it (a locked
folder, the live events.jsonl, session.json, steps.csv and the reports: run/recorded.py and
cli/main.py's save_reports), so the session.json of a call equals the CLI's for the same
arguments, bar timestamps and paths. A model given as a class or a callable is shipped to the
workers by value (api/shipping.py). Ctrl+C (KeyboardInterrupt) ends the workers and returns
what was measured.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import os
import sys
import warnings
from collections.abc import Callable, Sequence
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
from tcprof.profiler.cli.log_to_command import check_tracker_options
from tcprof.profiler.cli.main import save_reports
from tcprof.profiler.cli.run_args import config_from_args
from tcprof.profiler.config import PICKLED_MODEL_FILE, ConfigError, RunConfig
from tcprof.profiler.protocol.types import Event
from tcprof.profiler.run.recorded import RecordedRun
from tcprof.profiler.store.run_folder import open_run_folder
from tcprof.profiler.trackers import log_session

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
    argv = run_options.to_argv(values)
    shipped: Callable[[], Any] | None = None
    if isinstance(model, (str, os.PathLike)):
        argv.insert(0, os.fspath(model))
    elif callable(model):
        shipped = model
    elif model is not None:
        raise TypeError(f"model= is a file, a class or a callable, not {type(model).__name__}")
    args = run_options.parse(argv)
    return run_parsed(args, shipped, make_batch=make_batch, progress=progress)


def _signature_and_doc() -> None:
    """tcprof.run's signature and docstring list every option of `tcprof run`."""
    run.__signature__ = run_options.signature(inspect.signature(run))  # type: ignore[attr-defined]
    run.__doc__ = f"{run.__doc__}\n    Options (keyword = default: what it does):\n\n" + (
        run_options.options_help()
    )


_signature_and_doc()


def run_parsed(
    args: argparse.Namespace,
    model: Callable[[], Any] | None = None,
    *,
    make_batch: Callable[[int, Any], Any] | None = None,
    progress: ProgressChoice = None,
) -> Session:
    """A run from `tcprof run`'s parsed arguments (tcprof.run's, or the %tcprof magic's);
    `model` a Python object to ship instead of a model file."""
    check_progress(progress)
    tracker_problem = check_tracker_options(args.log_to, args.mlflow_experiment)
    if tracker_problem:  # before the run, as the CLI checks them
        raise ConfigError(tracker_problem)
    config, shipment = _config(args, model, make_batch)
    label = (
        shipment.name if shipment else args.example or Path(args.model_file).stem  # as the CLI
    )
    folder, lock = open_run_folder(args.out, args.force, label)
    try:
        if shipment is not None:
            source = dataclasses.replace(config.source, path=str(shipment.write(folder)))
            config = dataclasses.replace(config, source=source)
        shown = RunProgress(config, progress, args.quiet, args.show_output)
        recorded = RecordedRun(config, folder, lock, listeners=[shown], on_log_failure=_warn_event)
    except BaseException:
        lock.release()  # nothing started: the folder is not left locked
        raise
    try:
        live = recorded.run()
    finally:
        shown.close(recorded.session.status)
    if recorded.refusal is not None:  # found wrong before any arm ran, as the CLI refuses it
        recorded.save()
        raise ConfigError(recorded.refusal)
    full = live.to_dict()
    saved = recorded.save(full)
    problems = [saved.problem] if saved.problem else []
    if saved.folder is not None:
        problems += save_reports(full, saved.folder)
        if args.log_to:  # the session is saved first: a tracker that fails loses nothing
            problems += _log_session(saved.folder, args.log_to, args.mlflow_experiment, args.quiet)
    for line in problems:
        _warn(line)
    if args.json:
        print(json.dumps({k: v for k, v in full.items() if k not in ("samples", "logs")}, indent=1))
    return load(saved.folder) if saved.folder is not None else Session.from_dict(full)


def _config(
    args: argparse.Namespace,
    model: Callable[[], Any] | None,
    make_batch: Callable[[int, Any], Any] | None,
) -> tuple[RunConfig, Shipment | None]:
    """The CLI's RunConfig for the arguments; for a Python model, its shipment too (made
    before any folder exists, so a model that cannot travel creates nothing)."""
    if make_batch is not None and model is None:
        raise ValueError(
            "make_batch= goes with a model given as a class or callable (a model file "
            "defines its own make_batch)"
        )
    if make_batch is not None and not callable(make_batch):
        raise ValueError(f"make_batch= is a callable, not {type(make_batch).__name__}")
    if model is None:
        config = config_from_args(args)
        shipment = None
    else:
        if args.model_file or args.example:
            raise ConfigError("give the model as a Python object or as a file, not both")
        if args.model or args.factory:
            raise ConfigError(
                "model_name= and factory= choose a model in a file; a class or callable "
                "given as model= is the model itself"
            )
        placeholder = argparse.Namespace(**{**vars(args), "model_file": "."})
        config = config_from_args(placeholder, check_file=False)
        shipment = pack(model, make_batch)
        config = dataclasses.replace(
            config,
            source=dataclasses.replace(config.source, path=PICKLED_MODEL_FILE, model=shipment.name),
        )
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


def _log_session(
    folder: Path, specs: Sequence[str], experiment: str | None, quiet: bool
) -> list[str]:
    """The saved session logged to the trackers asked for (`tcprof run --log-to`'s
    log_session), each one logged said on stderr unless quiet; a warning line per problem."""

    def logged(line: str) -> None:
        if not quiet:
            print(f"tcprof: {line}", file=sys.stderr)

    try:
        lines = log_session(folder, list(specs), mlflow_experiment=experiment, on_logged=logged)
    except KeyboardInterrupt:
        return [f"logging to the trackers interrupted; the session is saved in {folder}"]
    except ValueError as exc:  # the session just saved could not be read back
        return [f"could not log the session to the trackers: {exc}"]
    return lines + ([f"log it again with tcprof log-to SPEC {folder}"] if lines else [])


def _warn(line: str) -> None:
    warnings.warn(line, TcprofWarning, stacklevel=3)


def _warn_event(event: Event) -> None:
    _warn(str(event.get("text")))
