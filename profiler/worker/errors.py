"""Turn an exception from the user's model or from torch.compile into a one-line error event."""

from __future__ import annotations

import os
import re
import traceback
from typing import Any

import torch

from tcprof.profiler.worker.model_source import ModelLoadError

_PROFILER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # profiler/, as imported
_OWN_DIRS = tuple(
    {os.path.dirname(torch.__file__), _PROFILER, os.path.realpath(_PROFILER)}  # and on disk
)


def _chain(exc: BaseException) -> list[BaseException]:
    seen, out = set(), []
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


READ_STDIN = "the model read from stdin (input()?): a profiled model gets no terminal input"
_USER_CODE_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_FAKE_CALL_ERROR = re.compile(r"got (\w+(?:Error|Exception))\('(.+?)'\)", re.S)


def _traced_user_frame(exc: BaseException, user_file: str | None) -> tuple[str | None, int | None]:
    """Dynamo reports where in the user's code tracing failed in a 'from user code:' section."""
    text = str(exc)
    if "from user code:" not in text:
        return None, None
    frames = _USER_CODE_FRAME.findall(text.split("from user code:", 1)[1])
    for fname, line in frames:
        if user_file and os.path.abspath(fname) == os.path.abspath(user_file):
            return fname, int(line)
    for fname, line in frames:
        if "site-packages" not in fname:
            return fname, int(line)
    return None, None


def user_location(exc: BaseException, user_file: str | None) -> tuple[str | None, int | None]:
    """The innermost frame in the user's file (else outside torch and this package)."""
    for item in _chain(exc):
        traced = _traced_user_frame(item, user_file)
        if traced[0]:
            return traced
    best: tuple[str | None, int | None] = (None, None)
    fallback: tuple[str | None, int | None] = (None, None)
    for item in _chain(exc):
        if isinstance(item, SyntaxError) and item.filename:
            return item.filename, item.lineno
        for frame in traceback.extract_tb(item.__traceback__):
            fname = os.path.abspath(frame.filename)
            if user_file and fname == os.path.abspath(user_file):
                best = (fname, frame.lineno)
            elif (
                not fname.startswith(_OWN_DIRS)
                and "site-packages" not in fname
                and not fname.startswith("<")
            ):
                fallback = (fname, frame.lineno)
    return best if best[0] else fallback


def is_oom(exc: BaseException) -> bool:
    for item in _chain(exc):
        if isinstance(item, (torch.cuda.OutOfMemoryError, MemoryError)):
            return True
        if "out of memory" in str(item).lower():
            return True
    return False


def is_user_code_error(exc: BaseException) -> bool:
    """Dynamo ran the user's code on fake tensors and it failed: eager would fail too."""
    import torch._dynamo.exc as dexc

    return any(isinstance(item, dexc.TorchRuntimeError) for item in _chain(exc))


def is_compile_failure(exc: BaseException) -> bool:
    import torch._dynamo.exc as dexc

    compile_types = tuple(
        t
        for t in (
            getattr(dexc, n, None)
            for n in (
                "BackendCompilerFailed",
                "Unsupported",
                "InternalTorchDynamoError",
                "UserError",
                "FailOnRecompileLimitHit",
                "RecompileError",
            )
        )
        if t
    )
    for item in _chain(exc):
        if isinstance(item, compile_types) or "fail_on_recompile" in str(item):
            return True
        mod = type(item).__module__ or ""
        if mod.startswith(("torch._inductor", "torch._dynamo.backends")):
            return True
    return False


def _first_line(text: str) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def describe(
    exc: BaseException,
    phase: str,
    compiled: bool,
    user_file: str | None,
    batch_size: int | None = None,
) -> dict[str, Any]:
    """phase: load, forward, loss, backward, optimizer or runtime (a later step)."""
    kind = phase
    if is_oom(exc):
        kind = "oom"
    elif (
        compiled
        and phase in ("forward", "backward", "runtime")
        and is_compile_failure(exc)
        and not is_user_code_error(exc)
    ):
        kind = "compile"
    file, line = user_location(exc, user_file)
    name, detail = type(exc).__name__, _first_line(str(exc)) or type(exc).__name__
    inner = _FAKE_CALL_ERROR.search(str(exc)) if is_user_code_error(exc) else None
    if inner:
        name, detail = inner.group(1), inner.group(2).strip()
    what = {
        "forward": "the first forward failed",
        "loss": "computing the loss failed",
        "backward": "backward() failed",
        "optimizer": "optimizer.step() failed",
        "runtime": "a training step failed",
        "compile": "torch.compile failed",
        "oom": "out of memory",
        "load": "loading the model failed",
    }.get(kind, kind)
    where = f" ({os.path.basename(file)}:{line})" if file else ""
    at = f" at batch size {batch_size}" if batch_size else ""
    message = f"{what}{at}: {name}: {detail}{where}"
    if any(isinstance(item, EOFError) for item in _chain(exc)):  # stdin is /dev/null
        message = f"{what}{at}: {READ_STDIN}{where}"
    return {
        "kind": kind,
        "message": message,
        "exception": type(exc).__name__,
        "traceback": "".join(traceback.format_exception(exc)),
        "file": file,
        "line": line,
        "batch_size": batch_size,
        "fatal": kind != "oom",
    }


class StepFailed(Exception):
    """A command failed in a way the user should read: carries the `error` event to send."""

    def __init__(self, event: dict[str, Any]) -> None:
        super().__init__(event["message"])
        self.event = event


def simple_error(kind: str, message: str, batch_size: int | None = None) -> dict[str, Any]:
    """An error event that no exception explains (a bad setting, a missing device)."""
    return {
        "kind": kind,
        "message": message,
        "traceback": None,
        "file": None,
        "line": None,
        "batch_size": batch_size,
        "fatal": True,
    }


def usage_error(message: str) -> StepFailed:
    return StepFailed(simple_error("usage", message))


def load_error(exc: Exception, user_file: str | None) -> dict[str, Any]:
    """Why the model could not be built: a ModelLoadError keeps its kind (load or syntax) and
    the user's file:line; anything else is described as a load error."""
    event = describe(exc, "load", False, user_file)
    if isinstance(exc, ModelLoadError):
        event.update(kind=exc.kind, message=str(exc))
        if exc.file:
            event.update(file=exc.file, line=exc.line)
    return event
