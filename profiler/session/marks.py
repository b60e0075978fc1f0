"""Each wire event a run's timeline needs, read once into analysis/timeline.py's typed `Mark`:
the fold's edge (it keeps one per event of `TIMELINE_TYPES`), so that everything after it, the
timeline's lanes and totals, reads typed marks."""

from __future__ import annotations

from tcprof.profiler.analysis.timeline import TIMELINE_TYPES, Mark
from tcprof.profiler.protocol.events import EventType
from tcprof.profiler.protocol.types import Event


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def timeline_mark(event: Event) -> Mark | None:
    """The small copy of an event a timeline keeps, or None for an event it does not need (the
    one reader of the wire event here: everything after reads the typed mark)."""
    kind, t = event.get("type"), _number(event.get("t"))
    if kind not in TIMELINE_TYPES or t is None:
        return None
    if kind == EventType.STEPS and event.get("phase") != "warmup":
        return None  # a block's steps: its block_done ends it
    check = event.get("cpu_check") if kind == EventType.LOADED else None
    arm, replicate, phase = event.get("arm"), event.get("replicate"), event.get("phase")
    batch_size, cache = event.get("batch_size"), event.get("cache")
    return Mark(
        type=kind,
        t=t,
        arm=arm if isinstance(arm, int) else None,
        replicate=replicate if isinstance(replicate, (int, str)) else None,
        phase=phase if isinstance(phase, str) else None,
        batch_size=batch_size if isinstance(batch_size, int) else None,
        cache=cache if isinstance(cache, str) else None,
        waited_s=_number(event.get("waited_s")),
        random_wait_s=_number(event.get("random_wait_s")),
        cpu_check_s=_number(check.get("seconds")) if isinstance(check, dict) else None,
        preflight_s=_number(event.get("preflight_s")) if kind == EventType.RUN_START else None,
    )
