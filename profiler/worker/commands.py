"""The worker's commands: the table of a model file's worker, and the loop that serves it.

How a command line is read, checked and answered (a `protocol` error, a StepFailed, a `runtime`
error, always one `done`) is command_stream.py's; a `load` of a script run hands the rest of
the stream to the script's own table (script_commands.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tcprof.profiler.worker.arm_worker import ArmWorker
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.command_stream import Command, CommandReader, execute


def _load(worker: ArmWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    worker.load(
        cmd["config"],
        cmd["arm_index"],
        cache_dir=cmd.get("cache_dir"),
        cache_artifacts=cmd.get("cache_artifacts"),
        threads=cmd.get("threads"),
        cpu_check_dir=cmd.get("cpu_check_dir"),
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
    worker.measure(
        cmd["batch_size"], cmd["steps"], cmd.get("block", 0), cmd.get("peers"), cmd.get("wait_s")
    )


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


def serve(worker: ArmWorker, channel: EventChannel, lines: Iterable[str]) -> int:
    """Answer commands until `exit` (or the end of input); the process's exit code. A `load`
    of a script run hands the rest to the script's own loop (script_commands.py)."""
    reader = CommandReader(lines, channel)
    while (cmd := reader.next_command()) is not None:
        if cmd.get("cmd") == "exit":
            channel.emit("bye")
            return 0
        if _is_script_load(cmd):
            from tcprof.profiler.worker.script.commands import serve_script

            return serve_script(channel, reader, cmd)
        execute(worker, channel, cmd, COMMANDS)
    return 0


def _is_script_load(cmd: dict[str, Any]) -> bool:
    config = cmd.get("config")
    return cmd.get("cmd") == "load" and isinstance(config, dict) and bool(config.get("script"))
