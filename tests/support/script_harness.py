"""A script run's worker loop driven in this process: the real ScriptWorker and its command
loop (profiler/worker/script/commands.py) reading a list of commands, its events recorded
instead of written to a pipe. For the tests of what a script run says and does without the
cost of a worker process (torch is imported once, by the test process).

A run arms the script's no-step alarm (SIGALRM, profiler/worker/script/alarm.py), which would
take the place of pytest-timeout's own SIGALRM: the modules that use this harness time out by
`method="thread"`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig, ScriptSource
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.command_stream import CommandReader


class RecordingChannel(EventChannel):
    """The worker's event channel, keeping the events in a list."""

    def __init__(self) -> None:
        super().__init__(-1)
        self.events: list[dict[str, Any]] = []

    def emit(self, type_: str, **fields: Any) -> None:
        self.events.append({"type": type_, **fields})


def script_config(path: Path, args: tuple[str, ...] = (), **overrides: Any) -> RunConfig:
    script_fields = {
        k: overrides.pop(k)
        for k in ("step_on", "sweep", "no_step_timeout_s", "cwd", "unit")
        if k in overrides
    }
    script = ScriptSource(path=str(path), args=args, **{"cwd": str(path.parent), **script_fields})
    fields: dict[str, Any] = {"warmup": 1, "steps": 4, "blocks": 2, "replicates": 1}
    fields.update(min_block_ms=0.0, arms=(ArmSpec("eager"),), batch_sizes=(1,))
    fields.update(overrides)
    return RunConfig(source=ModelSource(path=str(path)), script=script, **fields)


def schedule(cfg: RunConfig, arm: int = 0) -> list[dict[str, Any]]:
    """The commands the runner sends one arm of one round (no peers to wait for)."""
    from tcprof.profiler.run.runner import split_steps

    out: list[dict[str, Any]] = [{"cmd": "load", "config": cfg.to_dict(), "arm_index": arm}]
    for bs in cfg.batch_sizes:
        out.append({"cmd": "prepare", "batch_size": bs})
        for block, n in enumerate(split_steps(cfg.steps, cfg.blocks)):
            out.append(
                {"cmd": "measure", "batch_size": bs, "steps": n, "block": block, "peers": []}
            )
        out.append({"cmd": "finish", "batch_size": bs})
    return [*out, {"cmd": "exit"}]


def serve(commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Answer the commands as a script run's worker does; the events it sent."""
    from tcprof.profiler.worker.script.commands import serve_script

    channel = RecordingChannel()
    reader = CommandReader([json.dumps(c) + "\n" for c in commands], channel)
    first = reader.next_command()
    assert first is not None
    serve_script(channel, reader, first)
    return channel.events


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]
