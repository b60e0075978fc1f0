"""The engine's command stream as a worker reads it: one JSON object a line, each a command
answered by events and a final `done`.

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

from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.errors import StepFailed

Handler = Callable[[Any, EventChannel, dict[str, Any]], None]


class ProtocolError(Exception):
    """The engine sent something this worker does not understand."""


@dataclass(frozen=True)
class Command:
    handler: Handler
    needs: tuple[str, ...] = ()  # fields the command must carry


def parse(line: str) -> dict[str, Any]:
    try:
        cmd = json.loads(line)
    except ValueError as exc:
        raise ProtocolError(f"a command line that is not JSON: {line.strip()[:80]!r}") from exc
    if not isinstance(cmd, dict):
        raise ProtocolError(f"a command must be a JSON object, not {line.strip()[:80]!r}")
    return cmd


def execute(
    worker: Any, channel: EventChannel, cmd: dict[str, Any], table: dict[str, Command]
) -> None:
    """Run one command; its errors become `error` events, and `done` always follows."""
    name = cmd.get("cmd")
    try:
        command = table.get(name) if isinstance(name, str) else None
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


class CommandReader:
    """The engine's commands, one at a time, with one given back when a script's step hook
    read a command it cannot answer there (script_driver.py). A line that is not a command is
    answered with a `protocol` error and skipped."""

    def __init__(self, lines: Iterable[str], channel: EventChannel) -> None:
        self._lines = iter(lines)
        self._channel = channel
        self._back: list[dict[str, Any]] = []

    def next_command(self) -> dict[str, Any] | None:
        """The next command; None at the end of input (the engine is gone)."""
        if self._back:
            return self._back.pop()
        for line in self._lines:
            if not line.strip():
                continue
            try:
                return parse(line)
            except ProtocolError as exc:
                self._channel.emit("error", kind="protocol", message=str(exc), fatal=True)
                self._channel.emit("done", cmd=None, failed=True)
        return None

    def push_back(self, command: dict[str, Any]) -> None:
        self._back.append(command)
