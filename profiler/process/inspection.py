"""Ask a short-lived worker what a model file defines (the GUI never imports user files)."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

from tcprof.profiler.config import ModelSource
from tcprof.profiler.process.handle import Inbox
from tcprof.profiler.process.local import WorkerProcess
from tcprof.profiler.process.worker_end import end_message, output_details, with_last_words
from tcprof.profiler.protocol.wire import screen_hello

EXIT_WAIT_S = 2.0  # for a worker whose channel closed to end by itself


def _ask(
    command: dict[str, Any],
    answer_type: str,
    what: str,
    timeout_s: float,
    cancel: threading.Event | None = None,
    python: str | None = None,
) -> dict[str, Any]:
    """what: the question in words, for an error ('the inspection of the model file');
    python: asked of another interpreter (an arm's `python=`)."""
    inbox: Inbox = queue.Queue()
    worker = WorkerProcess(0, inbox, timed=False, python=python)
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
            if event.get("type") == "_eof":  # it ended before answering
                worker.wait(EXIT_WAIT_S)
                worker.stop(grace_s=0.2)
                message = end_message(worker.classify_exit(), what)
                tail = worker.output_tail()
                return {
                    "error": {
                        "kind": "crash",
                        "message": with_last_words(message, tail),
                        "traceback": output_details(tail),
                    }
                }
        return {"error": {"kind": "timeout", "message": f"no answer within {timeout_s:g} s"}}
    finally:
        worker.send({"cmd": "exit"})
        worker.stop(grace_s=0.2 if cancel is not None and cancel.is_set() else 2.0)


def inspect_model(
    source: ModelSource,
    timeout_s: float = 120.0,
    cancel: threading.Event | None = None,
    probe: bool = False,
) -> dict[str, Any]:
    """candidates, chosen, params, input, or error: the worker's `model_info` event; with
    `probe`, the eager step timed at two small batch sizes (worker/step_probe.py), for the
    estimate of a model with no earlier run. Setting `cancel` (from any thread) ends the
    worker within ~0.3 s."""
    command = {"cmd": "inspect", "source": {**source.to_dict(), "probe": probe}}
    return _ask(command, "model_info", "the inspection of the model file", timeout_s, cancel)


def probe_environment(
    timeout_s: float = 60.0, cancel: threading.Event | None = None, python: str | None = None
) -> dict[str, Any]:
    """torch version, devices and compile backends, from a worker (the `hello` event) of this
    interpreter or of `python` (an arm's own)."""
    command = {"cmd": "environment"}
    return _ask(command, "hello", "the environment probe", timeout_s, cancel, python)
