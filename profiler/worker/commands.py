"""The worker's commands: one JSON object a line, each answered by events and a final `done`.

A table maps each command to its handler and the fields it cannot do without. A line that is
not a JSON object, an unknown command or a missing field is a `protocol` error; a StepFailed is
the error its handler described for the user; any other exception is a `runtime` error with its
traceback. Every command but `exit` ends with `done` (`failed: true` after an error): that is
what the engine waits for, so no command can leave it waiting.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.worker.arm_worker import ArmWorker
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.errors import StepFailed

Handler = Callable[[ArmWorker, EventChannel, dict[str, Any]], None]


class ProtocolError(Exception):
    """The engine sent something this worker does not understand."""


@dataclass(frozen=True)
class Command:
    handler: Handler
    needs: tuple[str, ...] = ()  # fields the command must carry


def _load(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    worker.load(
        cmd["config"],
        cmd["arm_index"],
        cache_dir=cmd.get("cache_dir"),
        cache_artifacts=cmd.get("cache_artifacts"),
        threads=cmd.get("threads"),
    )


def _warm(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    from tcprof.profiler.worker.environment import warm_up

    warm_up()


def _environment(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    from tcprof.profiler.worker import environment

    channel.emit("hello", **environment.describe(environment.resolve_device("auto")))


def _inspect(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    from tcprof.profiler.worker.inspect_model import inspect_source

    inspect_source(channel, cmd["source"])


def _prepare(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    worker.prepare(cmd["batch_size"])


def _measure(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    worker.measure(cmd["batch_size"], cmd["steps"], cmd.get("block", 0), cmd.get("peers"))


def _finish(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    worker.finish(cmd["batch_size"], cmd.get("detail", True), cmd.get("peers"))


def _save_weights(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    if not _writes_files():
        return
    worker.save_weights(cmd["format"])


def _save_cache(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    if not _writes_files():
        return
    worker.save_cache(cmd["path"])


def _writes_files() -> bool:
    """Of a distributed arm's ranks, rank 0 alone writes the arm's files (one path each)."""
    from tcprof.profiler.worker import distributed

    return not distributed.is_rank() or distributed.rank() == 0


def _accuracy(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    worker.check_accuracy(cmd["batch_sizes"])


COMMANDS: dict[str, Command] = {
    "load": Command(_load, ("config", "arm_index")),
    "warm": Command(_warm),
    "environment": Command(_environment),
    "inspect": Command(_inspect, ("source",)),
    "prepare": Command(_prepare, ("batch_size",)),
    "measure": Command(_measure, ("batch_size", "steps")),
    "finish": Command(_finish, ("batch_size",)),
    "save_weights": Command(_save_weights, ("format",)),
    "save_cache": Command(_save_cache, ("path",)),
    "accuracy": Command(_accuracy, ("batch_sizes",)),
}


def parse(line: str) -> dict[str, Any]:
    try:
        cmd = json.loads(line)
    except ValueError as exc:
        raise ProtocolError(f"a command line that is not JSON: {line.strip()[:80]!r}") from exc
    if not isinstance(cmd, dict):
        raise ProtocolError(f"a command must be a JSON object, not {line.strip()[:80]!r}")
    return cmd


def execute(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    """Run one command; its errors become `error` events, and `done` always follows."""
    name = cmd.get("cmd")
    try:
        command = COMMANDS.get(name) if isinstance(name, str) else None
        if command is None:
            raise ProtocolError(f"unknown command {name!r}")
        missing = [field for field in command.needs if field not in cmd]
        if missing:
            raise ProtocolError(f"command {name!r} lacks {', '.join(missing)}")
        command.handler(worker, channel, cmd)
    except ProtocolError as exc:
        channel.emit("error", kind="protocol", message=str(exc), fatal=True)
        channel.emit("done", cmd=name, failed=True)
    except StepFailed as exc:
        channel.emit("error", **exc.event)
        channel.emit("done", cmd=name, failed=True)
    except Exception as exc:  # a bug of ours, or an error outside the user's step
        channel.emit(
            "error",
            kind="runtime",
            message=f"{type(exc).__name__}: {exc}",
            traceback="".join(traceback.format_exception(exc)),
            fatal=True,
        )
        channel.emit("done", cmd=name, failed=True)
    else:
        channel.emit("done", cmd=name)


def serve(worker: ArmWorker, channel: EventChannel, lines: Iterable[str]) -> int:
    """Answer commands until `exit` (or the end of input); the process's exit code."""
    for line in lines:
        if not line.strip():
            continue
        try:
            cmd = parse(line)
        except ProtocolError as exc:
            channel.emit("error", kind="protocol", message=str(exc), fatal=True)
            channel.emit("done", cmd=None, failed=True)
            continue
        if cmd.get("cmd") == "exit":
            channel.emit("bye")
            return 0
        execute(worker, channel, cmd)
    return 0
