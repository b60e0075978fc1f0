"""Worker process entry point: `python -m profiler.worker`.

Reads one JSON command per line on stdin and writes events on the original stdout (user prints
go to stderr). Runs everything in the main thread: torch.compile is not thread-safe.
"""

from __future__ import annotations

import json
import sys
import traceback

from profiler.events import PROTOCOL_VERSION
from profiler.worker.channel import EventChannel


def main() -> int:
    channel = EventChannel.take_stdout()
    channel.emit("ready", protocol=PROTOCOL_VERSION)
    from profiler.worker.arm_worker import ArmWorker, StepFailed  # imports torch

    worker = ArmWorker(channel)
    for line in sys.stdin:
        if not line.strip():
            continue
        cmd: dict = {}
        try:
            cmd = json.loads(line)
            name = cmd.get("cmd")
            if name == "exit":
                channel.emit("bye")
                return 0
            if name == "load":
                worker.load(
                    cmd["config"],
                    cmd["arm_index"],
                    cache_dir=cmd.get("cache_dir"),
                    cache_artifacts=cmd.get("cache_artifacts"),
                )
            elif name == "warm":
                from profiler.worker.environment import warm_up

                warm_up()
            elif name == "environment":
                from profiler.worker import environment

                channel.emit("hello", **environment.describe(environment.resolve_device("auto")))
            elif name == "inspect":
                from profiler.worker.inspect_model import inspect_source

                inspect_source(channel, cmd["source"])
            elif name == "prepare":
                worker.prepare(cmd["batch_size"])
            elif name == "measure":
                worker.measure(
                    cmd["batch_size"], cmd["steps"], cmd.get("block", 0), cmd.get("peers")
                )
            elif name == "save_weights":
                worker.save_weights(cmd["format"])
            elif name == "finish":
                worker.finish(cmd["batch_size"], cmd.get("detail", True))
            elif name == "save_cache":
                worker.save_cache(cmd["path"])
            elif name == "accuracy":
                worker.check_accuracy(cmd["batch_sizes"])
            else:
                channel.emit(
                    "error", kind="protocol", message=f"unknown command {name!r}", fatal=True
                )
                continue
            channel.emit("done", cmd=name)
        except StepFailed as exc:
            channel.emit("error", **exc.event)
            channel.emit("done", cmd=cmd.get("cmd"), failed=True)
        except Exception as exc:  # a bug of ours, or an error outside the user's step
            channel.emit(
                "error",
                kind="runtime",
                message=f"{type(exc).__name__}: {exc}",
                traceback="".join(traceback.format_exception(exc)),
                fatal=True,
            )
            channel.emit("done", cmd=cmd.get("cmd"), failed=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
