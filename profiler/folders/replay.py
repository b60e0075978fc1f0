"""The plot- and log-relevant events of a run, rebuilt from session.json alone.

A saved session is shown by feeding the plots and logs the events the live run fed them. When
events.jsonl is missing (a session.json copied on its own, or written by another tool), these
functions rebuild them from the session's samples, results, logs and errors: steps, memory
readings, compile markers, log lines and errors. Nothing else is needed to draw the plots.
"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.protocol.types import Event


def synthesise_events(session: dict[str, Any]) -> list[Event]:
    """Steps and memory per sample, compile markers per arm, then log lines and errors."""
    arms = session.get("arms") or []
    index = {a.get("name"): a.get("index", i) for i, a in enumerate(arms)}
    events: list[Event] = []
    for sample in session.get("samples") or []:
        arm = index.get(sample.get("arm"))
        if arm is not None:
            events += step_events(sample, arm) + memory_events(sample, arm)
    for i, arm_dict in enumerate(arms):
        events += compile_events(arm_dict, arm_dict.get("index", i))
    events += [{"type": "log", **line} for line in session.get("logs") or []]
    events += [{"type": "error", **err} for err in session.get("errors") or []]
    return events


def step_events(sample: dict[str, Any], arm: int) -> list[Event]:
    """The warm-up steps (from step 1), then the measured ones right after them."""
    warmup = list(sample.get("warmup_ms") or [])
    measured = list(sample.get("ms") or [])
    base = {"type": "steps", "arm": arm, "batch_size": sample.get("batch_size")}
    events = []
    if warmup:
        events.append({**base, "phase": "warmup", "start": 1, "ms": warmup})
    if measured:
        events.append({**base, "phase": "measure", "start": 1 + len(warmup), "ms": measured})
    return events


def memory_events(sample: dict[str, Any], arm: int) -> list[Event]:
    """One event per [step, rss_mb, cuda_alloc_mb, cuda_reserved_mb] reading."""
    events = []
    for reading in sample.get("memory") or []:
        step, rss, alloc, reserved = (list(reading) + [None] * 4)[:4]
        events.append(
            {
                "type": "memory",
                "arm": arm,
                "batch_size": sample.get("batch_size"),
                "step": step,
                "rss_mb": rss,
                "cuda_alloc_mb": alloc,
                "cuda_reserved_mb": reserved,
            }
        )
    return events


def compile_events(arm_dict: dict[str, Any], arm: int) -> list[Event]:
    """A marker per first compile, and per recompile (from `recompiles`, with its reason, or
    from a result that recompiled without one recorded)."""
    recompiles = arm_dict.get("recompiles") or []
    explained = {rc.get("batch_size") for rc in recompiles}
    events = []
    for result in arm_dict.get("results") or []:
        bs, status = result.get("batch_size"), result.get("compile_status")
        if status == "compiled" or (status == "recompiled" and bs not in explained):
            kind = "first" if status == "compiled" else "recompile"
            event: Event = {"type": "compile", "arm": arm, "batch_size": bs, "step": 0}
            event["kind"] = kind
            # The live marker's figure is torch's compile timer; the session keeps its sum
            # per batch size. Without it, the marker says it shows the compile cost instead.
            timer = result.get("dynamo_compile_s")
            if isinstance(timer, (int, float)):
                event.update(seconds=timer, timer=True)
            else:
                event.update(seconds=result.get("compile_s"), cost=True)
            events.append(event)
    events += [{**rc, "type": "compile", "arm": arm, "kind": "recompile"} for rc in recompiles]
    return events
