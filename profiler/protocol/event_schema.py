"""What the readers of events.jsonl rely on in each event, checked as each line is read.

Session.from_events folds the events of a file into a session (recovery, `tcprof report` on a
run cut short), and the window replays them into its plots and logs. An event whose fields
would break one of those readers (a batch size that is a string, step times that are not a
list) is left out instead, with the reason; types the readers do not fold are checked for the
fields every event carries. The pieces an event shares with session.json are declared once, in
profiler/protocol/session_schema.py. Qt-free.
"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.protocol.session_schema import (
    ACCURACY,
    ARTIFACT,
    CACHE_EVENT,
    CONFIG,
    CUDAGRAPH_SKIP,
    ENVIRONMENT,
    ERROR,
    EXIT,
    EXPLAIN,
    FALLBACK,
    FLAG,
    INT,
    LOADED,
    LOG,
    NUM,
    PROFILE,
    REPLICATE,
    TEXT,
    TEXTS,
    WHERE,
)
from tcprof.profiler.protocol.shapes import (
    Fields,
    Integer,
    ListOf,
    Number,
    Problem,
    Shape,
    Text,
    kind_of,
    with_fields,
)

RELAYED = Fields(
    {"type": Text(null=False), "arm": INT, "replicate": REPLICATE, "t": NUM}, required=("type",)
)
AT = {"batch_size": Integer(null=False)}  # events about one batch size of a timed process


def _event(base: Fields | None = None, required: tuple[str, ...] = (), **fields: Shape) -> Fields:
    """An event type's shape: the relayed fields, `base`'s (with its own checks) and more."""
    body = base or Fields({})
    return Fields(
        {**RELAYED.fields, **body.fields, **fields},
        (*RELAYED.required, *body.required, *required),
        null=False,
        also=body.also,
    )


EVENTS: dict[str, Fields] = {
    "run_start": _event(required=("config",), config=CONFIG, wall_time=NUM),
    "round_start": _event(cache=TEXT, order=TEXTS),
    "arm_start": _event(name=TEXT, backend=TEXT, cache=TEXT),
    "hello": _event(ENVIRONMENT),
    "loaded": _event(LOADED),
    "phase": _event(phase=TEXT, batch_size=INT),
    "first_step": _event(
        required=("batch_size",),
        **AT,
        ms=NUM,
        loss=NUM,
        grad_norm=NUM,
        compile_s=NUM,
        compiles=INT,
        compile_peak_mb=NUM,
    ),
    "steps": _event(
        required=("batch_size", "ms"),
        **AT,
        ms=ListOf(Number(null=False), null=False),
        phase=TEXT,
        start=INT,
        block=INT,
    ),
    "memory": _event(
        required=("batch_size",),
        **AT,
        step=INT,
        rss_mb=NUM,
        cuda_alloc_mb=NUM,
        cuda_reserved_mb=NUM,
    ),
    "compile": _event(
        required=("batch_size",),
        **AT,
        step=Integer(null=False),
        kind=TEXT,
        reason=TEXT,
        frame=TEXT,
        seconds=NUM,
        backend_s=NUM,
        inductor_s=NUM,
        code_gen_s=NUM,
        fx_cache_hits=INT,
        fx_cache_misses=INT,
        aot_cache_hits=INT,
        aot_cache_misses=INT,
        fail_type=TEXT,
        **WHERE,
    ),
    "graph_break": _event(
        required=("batch_size",),
        **AT,
        step=INT,
        reason=TEXT,
        explanation=TEXT,
        hints=TEXTS,
        text=TEXT,
        **WHERE,
    ),
    "fallback": _event(with_fields(FALLBACK, **AT), required=("batch_size",)),
    "cudagraph_skip": _event(with_fields(CUDAGRAPH_SKIP, **AT), required=("batch_size",)),
    "explain": _event(EXPLAIN),
    "block_done": _event(batch_size=INT, block=INT, steps=INT, quiet=FLAG, waited_s=NUM),
    "bs_done": _event(
        required=("batch_size",),
        **AT,
        last_loss=NUM,
        graphs=INT,
        recompiles=INT,
        graph_breaks=INT,
        fell_back=FLAG,
        dynamo_compile_s=NUM,
        peak_rss_mb=NUM,
        os_peak_rss_mb=NUM,
        peak_cuda_mb=NUM,
        peak_cuda_reserved_mb=NUM,
        steady_peak_mb=NUM,
        steady_method=TEXT,
    ),
    "accuracy": _event(ACCURACY),
    "profile": _event(with_fields(PROFILE, **AT), required=("batch_size",)),
    "artifact": _event(ARTIFACT),
    "cache_saved": _event(CACHE_EVENT),
    "cache_loaded": _event(CACHE_EVENT),
    "log": _event(LOG),
    "error": _event(ERROR),
    "worker_exit": _event(EXIT),
    "run_end": _event(status=TEXT, wall_time=NUM),
    # the rank's own event is checked as an event of its type (event_problem)
    "rank_event": _event(
        required=("rank", "event"),
        rank=Integer(null=False),
        node=INT,
        host=TEXT,
        event=Fields({"type": Text(null=False)}, required=("type",), null=False),
    ),
}


def event_problem(event: Any) -> Problem:
    """The first field of an event its readers could not use, or None. Types the readers do
    not fold are checked for the relayed fields only."""
    if not isinstance(event, dict):
        return f"the event is {kind_of(event)}, expected an object"
    kind = event.get("type")
    shape = EVENTS.get(kind) if isinstance(kind, str) else None
    problem = (shape or RELAYED).problem(event, "")
    if problem is None and kind == "rank_event":
        inner = event_problem(event["event"])
        problem = f"event: {inner}" if inner else None
    return f"{kind} event: {problem}" if problem and isinstance(kind, str) else problem
