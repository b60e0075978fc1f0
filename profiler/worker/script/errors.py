"""Why a script's run failed, in one line each: it raised (its traceback with the user's frames
first), exited, ended by itself before the schedule had its steps, never stepped an optimizer,
or read stdin."""

from __future__ import annotations

import traceback
from typing import Any

from tcprof.profiler.config import RunConfig
from tcprof.profiler.worker import errors
from tcprof.profiler.worker.frames import internal
from tcprof.profiler.worker.script.run import ScriptEnd

READ_STDIN = "tcprof gives it /dev/null; pass what it asks for as arguments"


def steps_needed(cfg: RunConfig) -> int:
    """The steps one phase of the schedule runs: the first, the warm-up, and per block one
    discarded step and its measured ones (as runner.split_steps splits them)."""
    blocks = max(1, min(cfg.blocks, cfg.steps))
    return 1 + cfg.warmup + blocks + cfg.steps


def user_traceback(exc: BaseException) -> str:
    """The traceback as `python train.py` would print it: from the script's frame on, without
    the worker's and runpy's frames above it."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None and internal(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def _unit(cfg: RunConfig) -> str:
    assert cfg.script is not None
    return "optimizer step" if cfg.script.step_on == "optimizer" else "forward call of the model"


def _counted(steps: int, unit: str) -> str:
    """'2 optimizer steps', '1 forward call of the model'."""
    if steps == 1:
        return f"1 {unit}"
    head, _, tail = unit.partition(" of ")
    return f"{steps} {head}s" + (f" of {tail}" if tail else "")


def script_error(
    end: ScriptEnd, cfg: RunConfig, batch_size: int, steps: int, in_step: bool, compiled: bool
) -> dict[str, Any]:
    """The `error` event for a run that ended while a command was owed, with the steps it ran
    (its row keeps them). steps: the steps it completed; in_step: whether it failed inside a
    step (after its first forward)."""
    event = _script_error(end, cfg, batch_size, steps, in_step, compiled)
    if steps:
        event["steps_run"] = steps
    return event


def _script_error(
    end: ScriptEnd, cfg: RunConfig, batch_size: int, steps: int, in_step: bool, compiled: bool
) -> dict[str, Any]:
    assert cfg.script is not None
    unit = _unit(cfg)
    at = f" at {cfg.script.sweep}={batch_size}" if cfg.script.sweep else ""
    # 'after 2 optimizer steps': the steps it completed (it failed in the next one, or between)
    when = f"before its first {unit}" if steps == 0 else f"after {_counted(steps, unit)}"
    if end.how == "no_step":
        timeout = cfg.script.no_step_timeout_s
        hint = (
            "is this a training script? `--step-on forward` for inference"
            if cfg.script.step_on == "optimizer"
            else "does the script call its model?"
        )
        message = f"no {unit} in {timeout:g} s: {hint} (or a longer --no-step-timeout)"
        return errors.simple_error("usage", message, batch_size)
    if end.how == "raised" and end.exc is not None:
        return _raised(end.exc, cfg, batch_size, when + at, steps, in_step, compiled)
    if end.how == "exit" and end.code not in (None, 0):
        message = f"the script exited with code {end.code} {when}{at} (its output is in the log)"
        return errors.simple_error("load" if steps == 0 else "runtime", message, batch_size)
    need = steps_needed(cfg)
    if steps == 0:
        message = f"the script ended {when}{at}: it never stepped an optimizer"
        if cfg.script.step_on == "optimizer":
            message += " (`--step-on forward` for an inference script)"
        return errors.simple_error("usage", message, batch_size)
    message = (
        f"the script ended by itself after {steps} {unit}s{at}; this run needs {need} "
        f"(1 first + --warmup {cfg.warmup} + --steps {cfg.steps} in "
        f"{max(1, min(cfg.blocks, cfg.steps))} blocks, each after a discarded step): lower "
        "--steps, --warmup or --blocks, or let the script run longer (its own steps or epochs "
        "argument)"
    )
    return errors.simple_error("usage", message, batch_size)


def _raised(
    exc: BaseException,
    cfg: RunConfig,
    batch_size: int,
    when: str,
    steps: int,
    in_step: bool,
    compiled: bool,
) -> dict[str, Any]:
    assert cfg.script is not None
    phase = "runtime" if steps else ("forward" if in_step else "load")
    event = errors.describe(exc, phase, compiled, cfg.script.path, batch_size)
    if event["kind"] == "load" and isinstance(exc, SyntaxError):
        event["kind"] = "syntax"
    detail = event["message"].split(": ", 1)[1] if ": " in event["message"] else event["message"]
    if event["kind"] not in ("oom", "compile"):
        event["message"] = f"the script raised {when}: {detail}"
    if any(isinstance(e, EOFError) for e in _chain(exc)):
        where = f" ({event['file'].rsplit('/', 1)[-1]}:{event['line']})" if event["file"] else ""
        event["message"] = f"the script read from stdin {when} (input()?): {READ_STDIN}{where}"
    event["traceback"] = user_traceback(exc)
    return event


def _chain(exc: BaseException) -> list[BaseException]:
    out, seen = [], set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out
