"""The event protocol between a worker process and the engine.

Events are small JSON objects, one per line, on the worker's event channel. Every event has a
`type`; the engine adds `arm` (the arm's index) and `t` (seconds since the run started) when it
receives one. The set is versioned by PROTOCOL_VERSION; a reader ignores types it does not know.

Worker -> engine:
  hello        environment: torch, python, platform, device, device_name, backends, ...
  loaded       model: name, params, input, loss_kind, candidates
  phase        phase (loading|compiling|warmup|measuring|idle), batch_size
  first_step   batch_size, ms, loss, grad_norm, compile (dynamo compile metrics of the step)
  steps        batch_size, phase (warmup|measure), start (step index), ms (list of floats)
  memory       batch_size, step, rss_mb, cuda_alloc_mb, cuda_reserved_mb
  compile      batch_size, step, kind (first|recompile), reason, frame, file, line, seconds, ...
  graph_break  batch_size, reason, file, line, count
  block_done   batch_size, steps
  bs_done      batch_size, peaks, last_loss, graphs, graph_breaks, recompiles, fell_back
  model_info   answer to `inspect`: candidates, chosen, params, input
  log          stream (stdout|stderr|torch), text
  error        kind, message, traceback, file, line, batch_size, fatal
Engine -> listeners (besides the above):
  run_start, arm_start, worker_exit, run_end
"""

from __future__ import annotations

import json
import math
from typing import Any

PROTOCOL_VERSION = 1

ERROR_KINDS = (
    "usage",  # bad configuration found by the worker (unknown backend, ...)
    "load",  # the model file could not be imported or the model not built
    "syntax",  # the model file has a syntax error
    "forward",  # the first forward failed (shape mismatch, ...)
    "loss",  # no loss could be formed from the model's output
    "backward",  # backward() raised
    "optimizer",
    "compile",  # torch.compile / a backend failed
    "runtime",  # a later step raised
    "oom",  # out of memory
    "crash",  # the worker died (signal, os._exit)
    "timeout",
    "protocol",
)


def jsonsafe(value: Any) -> Any:
    """NaN and infinity become null, so every file we write is strict JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): jsonsafe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonsafe(v) for v in value]
    return value


def encode(event: dict[str, Any]) -> bytes:
    return (json.dumps(jsonsafe(event), allow_nan=False, separators=(",", ":")) + "\n").encode()


def decode(line: bytes | str) -> dict[str, Any]:
    event = json.loads(line)
    if not isinstance(event, dict) or "type" not in event:
        raise ValueError("not an event")
    return event
