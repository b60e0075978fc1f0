"""Ask a short-lived worker what a model file defines (the GUI never imports user files)."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

from profiler.config import ModelSource
from profiler.events import screen_hello
from profiler.worker_process import WorkerProcess


def _ask(
    command: dict[str, Any],
    answer_type: str,
    timeout_s: float,
    cancel: threading.Event | None = None,
) -> dict[str, Any]:
    inbox: queue.Queue = queue.Queue()
    worker = WorkerProcess(0, inbox)
    deadline = time.monotonic() + timeout_s
    try:
        worker.send(command)
        while time.monotonic() < deadline:
            if cancel is not None and cancel.is_set():
                return {"error": {"kind": "cancelled", "message": "cancelled"}}
            try:
                _, event = inbox.get(timeout=0.1)
            except queue.Empty:
                continue
            event = screen_hello(event)
            if event.get("type") == answer_type:
                return event
            if event.get("type") == "error":
                return {"error": {"kind": event.get("kind"), "message": event.get("message")}}
            if event.get("type") == "_eof":
                return {
                    "error": {
                        "kind": "crash",
                        "message": worker.classify_exit().get("message", "the worker ended"),
                    }
                }
        return {"error": {"kind": "timeout", "message": f"no answer within {timeout_s:g} s"}}
    finally:
        worker.send({"cmd": "exit"})
        worker.stop(grace_s=0.2 if cancel is not None and cancel.is_set() else 2.0)


def inspect_model(
    source: ModelSource, timeout_s: float = 120.0, cancel: threading.Event | None = None
) -> dict[str, Any]:
    """candidates, chosen, params, input, or error: the worker's `model_info` event.
    Setting `cancel` (from any thread) ends the worker within ~0.3 s."""
    return _ask({"cmd": "inspect", "source": source.to_dict()}, "model_info", timeout_s, cancel)


def probe_environment(
    timeout_s: float = 60.0, cancel: threading.Event | None = None
) -> dict[str, Any]:
    """torch version, devices and compile backends, from a worker (the `hello` event)."""
    return _ask({"cmd": "environment"}, "hello", timeout_s, cancel)
