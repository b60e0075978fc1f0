"""The headless commands: `tcprof run`, `examples`, `inspect`, `report`, `compare` (the window is
opened by `app.launcher`, which hands every other command line to `main` here).

Exit codes: 0 all arms ran; 1 a model, compile or run error (what did run is kept);
2 a usage error; 130 interrupted by Ctrl+C, SIGTERM or SIGHUP (what was measured is kept)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from profiler import examples, session_files
from profiler.config import (
    AMP_DTYPES,
    COMPILE_MODES,
    CONTROL_LABEL,
    DEBUG_PRESET_BACKEND,
    DEBUG_PRESET_LOGS,
    DEFAULT_REPLICATES,
    DEFAULT_STALL_TIMEOUT_S,
    LOG_ARTIFACTS,
    LOOPS,
    MIN_BLOCK_MS,
    ArmSpec,
    ConfigError,
    DebugOptions,
    ModelSource,
    RunConfig,
    parse_arms,
    parse_batch_sizes,
)
from profiler.ladder import ladder_arms
from profiler.outputs import EventLog
from profiler.progress import TerminalProgress
from profiler.report.cli import add_report_parser, cmd_report
from profiler.run_folder import open_run_folder, save_run
from profiler.run_lock import RunLock
from profiler.runner import Runner
from profiler.summary import render_summary

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
DEFAULT_ARMS = "eager,inductor"
# The engine never imports the GUI: `python -m profiler` runs the headless commands only.
NO_WINDOW_HERE = (
    "the desktop application opens with `tcprof` (no arguments, or `tcprof gui`) or "
    "`python -m app`; `python -m profiler` runs the headless commands"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcprof",
        description="Torch Compile Profiler: eager against torch.compile on your own training loop.",
    )
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser(
        "run", help="profile a model file (or a built-in example) and print a summary"
    )
    src = run.add_argument_group("model")
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
    arms = run.add_argument_group("arms")
    arms.add_argument(
        "--arms",
        help="comma-separated backends (the first is the baseline), or per-arm options separated by ';': "
        "'eager; inductor:mode=max-autotune,dynamic=false; aot_eager:fullgraph=true,label=aot' "
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
    loop = run.add_argument_group("loop")
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
        action="store_true",
        help=f"add an A/A control: a second eager arm ({CONTROL_LABEL}) that shows the noise floor",
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
    loop.add_argument("--device", default="cpu", choices=("cpu", "cuda", "mps", "auto"))
    loop.add_argument("--optimizer", default="sgd", choices=("sgd", "adam", "adamw"))
    loop.add_argument("--lr", type=float, default=0.01)
    loop.add_argument("--seed", type=int, default=0)
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
    dbg = run.add_argument_group("debug (compiled arms)")
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
    out = run.add_argument_group("output")
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

    sub.add_parser("examples", help="list the built-in example models")
    ins = sub.add_parser("inspect", help="list the models a file defines and the inferred input")
    ins.add_argument("model_file")
    ins.add_argument("--model")
    ins.add_argument("--factory")
    ins.add_argument("--input-shape")
    add_report_parser(sub)
    cmp_ = sub.add_parser("compare", help="compare two saved sessions (before / after)")
    cmp_.add_argument("before", help="the earlier run's session folder or session.json")
    cmp_.add_argument("after", help="the later run's session folder or session.json")
    sub.add_parser("gui", help="open the desktop application (the default with no arguments)")
    return parser


def _apply_defaults(arms: tuple[ArmSpec, ...], args: argparse.Namespace) -> tuple[ArmSpec, ...]:
    out = []
    for a in arms:
        if a.compiled:
            kw = a.to_dict()
            if args.mode and a.mode is None and a.backend == "inductor":
                kw["mode"] = args.mode
            if args.dynamic and a.dynamic is None:
                kw["dynamic"] = {"none": None, "true": True, "false": False}[args.dynamic]
            if args.fullgraph:
                kw["fullgraph"] = True
            a = ArmSpec.from_dict(kw)
        out.append(a)
    return tuple(out)


def config_from_args(args: argparse.Namespace, artifacts_dir: str | None = None) -> RunConfig:
    if bool(args.model_file) == bool(args.example):
        raise ConfigError("give a model file or --example NAME (one of them)")
    path = (
        str(examples.example_path(args.example))
        if args.example
        else str(Path(args.model_file).expanduser().absolute())
    )
    logs = tuple(a.strip() for a in args.log.split(",") if a.strip())
    if args.ladder is not None and args.arms:
        raise ConfigError("give --arms or --ladder, not both")
    if args.ladder is not None:
        arms = _apply_defaults(ladder_arms(args.ladder), args)
    else:
        arms = _apply_defaults(parse_arms(args.arms or DEFAULT_ARMS), args)
    if args.debug_preset and not any(a.backend == DEBUG_PRESET_BACKEND for a in arms):
        arms = (*arms, ArmSpec(DEBUG_PRESET_BACKEND, label=f"debug ({DEBUG_PRESET_BACKEND})"))
    return RunConfig(
        source=ModelSource(
            path=path, model=args.model, factory=args.factory, input_shape=args.input_shape
        ),
        arms=arms,
        batch_sizes=parse_batch_sizes(args.batch_sizes),
        warmup=args.warmup,
        steps=args.steps,
        blocks=args.blocks,
        sequential=args.sequential,
        device=args.device,
        optimizer=args.optimizer,
        lr=args.lr,
        seed=args.seed,
        replicates=args.replicates,
        control=args.control,
        threads=args.threads,
        warm_cache=args.warm_cache,
        min_block_ms=args.min_block_ms,
        accuracy=not args.no_accuracy,
        accuracy_rtol=args.rtol,
        accuracy_atol=args.atol,
        debug=DebugOptions(
            logs=tuple(dict.fromkeys(logs + (DEBUG_PRESET_LOGS if args.debug_preset else ()))),
            verbose=args.verbose_dynamo or args.debug_preset,
            suppress_errors=args.suppress_errors,
            fail_on_recompile=args.fail_on_recompile,
            explain=args.explain or args.debug_preset,
            compile_debug=args.compile_debug,
            trace=args.trace,
            memory_snapshot=args.memory_snapshot,
        ),
        timeout_s=args.timeout,
        stall_timeout_s=args.stall_timeout or None,
        artifacts_dir=artifacts_dir,
        ladder=args.ladder is not None,
        apply_advice=args.apply_advice,
        block_module=args.block_module,
        weights=str(Path(args.weights).expanduser().resolve()) if args.weights else None,
        save_weights=args.save_weights,
        profile_steps=args.profile_steps,
        loop=args.loop,
        amp=args.amp,
        channels_last=args.channels_last,
        compile_optimizer=args.compile_optimizer,
    )


def cmd_run(args: argparse.Namespace) -> int:
    try:
        config = config_from_args(args, artifacts_dir=args.out or "pending")
    except ConfigError as exc:
        print(f"tcprof: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    label = args.example or Path(args.model_file).stem
    try:
        out_dir, lock = open_run_folder(args.out, args.force, label)
    except OSError as exc:  # an unwritable home, an earlier run in --out, a live run there
        print(f"tcprof: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    config = dataclasses.replace(config, artifacts_dir=str(out_dir.absolute()))

    def log_failed(event: dict) -> None:  # a full disk: say so once, the run goes on
        runner.session.apply(event)
        print(f"tcprof: warning: {event['text']}", file=sys.stderr)

    log = session_files.open_event_log(out_dir, on_failure=log_failed)
    progress = TerminalProgress(
        config, [a.name for a in config.run_arms], quiet=args.quiet, show_output=args.show_output
    )
    runner = Runner(config, listeners=[log, progress])
    with _stopped_by_signals(runner) as signalled:
        return _run_and_save(runner, args, out_dir, lock, log, progress, signalled)


def _run_and_save(
    runner: Runner,
    args: argparse.Namespace,
    out_dir: Path,
    lock: RunLock,
    log: EventLog,
    progress: TerminalProgress,
    signalled: list[int],
) -> int:
    """Run, then write what was measured however the run ended; the exit code."""
    interrupted = False
    try:
        session = runner.run()
    except KeyboardInterrupt:
        interrupted = True
        session = runner.session
    finally:
        progress.close()
        log.close()
    interrupted = interrupted or bool(signalled)
    full = session.to_dict()
    saved, problems = save_run(full, out_dir)  # the session first: a failing report keeps it
    lock.release()
    for line in problems:
        print(f"tcprof: {line}", file=sys.stderr)
    data = {k: v for k, v in full.items() if k not in ("samples", "logs")}
    if args.json:
        print(json.dumps(data, indent=1))
    else:
        print(render_summary(data))
    print(f"\nsession: {saved or 'not saved'}", file=sys.stderr)
    if interrupted:
        print("tcprof: interrupted; what was measured is kept", file=sys.stderr)
        return EXIT_INTERRUPTED
    return exit_code(data) if saved is not None else EXIT_ERROR


@contextlib.contextmanager
def _stopped_by_signals(runner: Runner) -> Iterator[list[int]]:
    """SIGTERM and SIGHUP (a closed terminal) end the run as Ctrl+C does: the runner stops its
    workers, what was measured is written, and the exit code is 130. Yields the signals seen."""
    seen: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        seen.append(signum)
        runner.cancel()

    wanted = [getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    if threading.current_thread() is not threading.main_thread():
        wanted = []  # signal handlers belong to the main thread
    previous = {sig: signal.signal(sig, stop) for sig in wanted}
    try:
        yield seen
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def exit_code(data: dict) -> int:
    errors = [a["error"] for a in data["arms"] if a.get("error")]
    errors += [r["error"] for a in data["arms"] for r in a["results"] if r.get("error")]
    # a worker that ended unasked or stalled, also in the untimed accuracy pass
    errors += [e for e in data.get("errors", []) if e.get("kind") in ("crash", "stall")]
    if errors and all(e.get("kind") == "usage" for e in errors):
        return EXIT_USAGE
    if errors or data.get("status") not in ("completed",):
        return EXIT_ERROR
    return EXIT_OK


def cmd_examples() -> int:
    for name, (_path, doc) in examples.list_examples().items():
        print(f"{name:12s} {doc}")
    return EXIT_OK


def cmd_inspect(args: argparse.Namespace) -> int:
    from profiler.inspection import inspect_model

    info = inspect_model(
        ModelSource(
            path=str(Path(args.model_file).absolute()),
            model=args.model,
            factory=args.factory,
            input_shape=args.input_shape,
        )
    )
    for c in info.get("candidates", []):
        print(
            f"{c['kind']:8s} {c['name']}{c['signature']}"
            + ("" if c["zero_arg"] else "   (needs arguments)")
        )
    if info.get("error"):
        print(f"tcprof: error: {info['error']['message']}", file=sys.stderr)
        return EXIT_ERROR
    print(f"\nchosen: {info['chosen']}  parameters: {info['params']:,}  input: {info['input']}")
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from profiler.compare import compare_saved

    try:
        print(compare_saved(args.before, args.after))
    except session_files.SessionLoadError as exc:
        print(f"tcprof: error: cannot read session: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        problem = f"{type(exc).__name__}: {exc}"  # a value the session checks let through
        print(f"tcprof: error: cannot compare the sessions: {problem}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] == "gui":
        build_parser().print_usage(sys.stderr)
        print(f"tcprof: error: {NO_WINDOW_HERE}", file=sys.stderr)
        return EXIT_USAGE
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "run":
        return cmd_run(args)
    if args.command == "examples":
        return cmd_examples()
    if args.command == "inspect":
        return cmd_inspect(args)
    if args.command == "compare":
        return cmd_compare(args)
    if args.command == "report":
        return cmd_report(args)
    parser.print_help()
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
