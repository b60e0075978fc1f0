"""The command table of a script run's worker, and the loop that serves it after `load`.

`prepare` runs the script (ScriptWorker.run), which answers the schedule's `measure` and
`finish` from inside it and gives back the first command it cannot answer there; outside a
run, `measure` and `finish` have no script to measure, which is a failed command (the script
ended before them, and its error was already sent).
"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.command_stream import Command, CommandReader, execute
from tcprof.profiler.worker.errors import StepFailed, simple_error
from tcprof.profiler.worker.script.worker import ScriptWorker


def _load(worker: ScriptWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    worker.load(
        cmd["config"],
        cmd["arm_index"],
        cache_dir=cmd.get("cache_dir"),
        cache_artifacts=cmd.get("cache_artifacts"),
        threads=cmd.get("threads"),
        cpu_check_dir=cmd.get("cpu_check_dir"),
    )


def _not_running(worker: ScriptWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    message = f"{cmd.get('cmd')}: the script is not running (it ended before this command)"
    raise StepFailed(simple_error("runtime", message, cmd.get("batch_size")))


def _save_cache(worker: ScriptWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    worker.save_cache(cmd["path"])


def _save_weights(worker: ScriptWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    worker.save_weights()


def _accuracy(worker: ScriptWorker, channel: EventChannel, cmd: dict[str, Any]) -> None:
    worker.accuracy(cmd["batch_sizes"])


SCRIPT_COMMANDS: dict[str, Command] = {
    "load": Command(_load, ("config", "arm_index")),
    "measure": Command(_not_running, ("batch_size", "steps")),
    "finish": Command(_not_running, ("batch_size",)),
    "save_cache": Command(_save_cache, ("path",)),
    "save_weights": Command(_save_weights, ("format",)),
    "accuracy": Command(_accuracy, ("batch_sizes",)),
}


def serve_script(channel: EventChannel, reader: CommandReader, load: dict[str, Any]) -> int:
    """Answer a script run's commands from its `load` on, until `exit` (or the end of input)."""
    worker = ScriptWorker(channel, reader)
    cmd: dict[str, Any] | None = load
    while cmd is not None:
        name = cmd.get("cmd")
        if name == "exit":
            channel.emit("bye")
            return 0
        if name == "prepare" and "batch_size" in cmd:
            worker.run(cmd)  # answers `prepare` (and what it reads meanwhile) itself
        else:
            execute(worker, channel, cmd, SCRIPT_COMMANDS)
        cmd = reader.next_command()
    return 0
