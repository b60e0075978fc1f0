"""What the readers of events.jsonl rely on in each event, checked as each line is read.

SessionFold.from_events folds the events of a file into a session (recovery, `tcprof report` on a
run cut short), and the window replays them into its plots and logs. An event whose fields
would break one of those readers (a batch size that is a string, step times that are not a
list) is left out instead, with the reason; types the readers do not fold are checked for the
fields every event carries. The pieces an event shares with session.json are declared once, in
profiler/protocol/session_schema.py.

Which fields an event has is declared once, by its TypedDict in profiler/protocol/events.py:
each shape below takes its keys from there and says only how the fields the readers rely on
are checked (the others are taken as they come). A check of a field the TypedDict does not
declare fails at import, naming it. Qt-free.
"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.protocol.events import (
    AccuracyEvent,
    ArmStartEvent,
    ArtifactEvent,
    BlockDoneEvent,
    BsDoneEvent,
    CacheLoadedEvent,
    CacheSavedEvent,
    CompileEvent,
    CudagraphSkipEvent,
    ErrorEvent,
    ExplainEvent,
    FallbackEvent,
    FirstStepEvent,
    GraphBreakEvent,
    HelloEvent,
    LoadedEvent,
    LogEvent,
    MemoryEvent,
    PhaseEvent,
    ProfileEvent,
    RankEventEvent,
    RoundEndEvent,
    RoundStartEvent,
    RunEndEvent,
    RunStartEvent,
    ScriptEvent,
    StepsEvent,
    WorkerExitEvent,
    field_names,
)
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
    PROVENANCE,
    REPLICATE,
    SEEDING,
    STOPPING,
    TEXT,
    TEXTS,
)
from tcprof.profiler.protocol.shapes import (
    Anything,
    Check,
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
BATCH_SIZE = Integer(null=False)  # of the events about one batch size of a timed process


UNCHECKED = Anything()  # a declared field no reader relies on


def _event(
    declared: type,
    base: Fields | None = None,
    required: tuple[str, ...] = (),
    also: Check | None = None,
    **checks: Shape,
) -> Fields:
    """An event type's shape: every field its TypedDict declares, those that the relayed
    fields, `base` (with its own checks) and `checks` name checked so, the rest unchecked."""
    body = base or Fields({})
    checked = {**RELAYED.fields, **body.fields, **checks}
    names = field_names(declared)
    undeclared = [name for name in checked if name not in names]
    if undeclared:
        raise TypeError(f"{declared.__name__} declares no {', '.join(undeclared)} (events.py)")
    return Fields(
        {**checked, **{name: UNCHECKED for name in names if name not in checked}},
        (*RELAYED.required, *body.required, *required),
        null=False,
        also=also or body.also,
    )


# SessionFold keeps a cache event whole in its arm's cache_events, which session.json checks
# as CACHE_EVENT (the fields of both kinds): an event that would not fit there is left out.
KEPT_AS_IN_THE_SESSION = CACHE_EVENT.problem

EVENTS: dict[str, Fields] = {
    "run_start": _event(
        RunStartEvent,
        required=("config",),
        config=CONFIG,
        wall_time=NUM,
        provenance=PROVENANCE,
        seeding=SEEDING,
    ),
    "round_start": _event(RoundStartEvent, cache=TEXT, order=TEXTS, seed=INT),
    "arm_start": _event(ArmStartEvent, name=TEXT, backend=TEXT, cache=TEXT),
    "hello": _event(HelloEvent, ENVIRONMENT),
    "loaded": _event(LoadedEvent, LOADED),
    "phase": _event(PhaseEvent, phase=TEXT, batch_size=INT),
    "first_step": _event(
        FirstStepEvent,
        required=("batch_size",),
        batch_size=BATCH_SIZE,
        ms=NUM,
        loss=NUM,
        grad_norm=NUM,
        compile_s=NUM,
        compiles=INT,
        compile_peak_mb=NUM,
    ),
    "steps": _event(
        StepsEvent,
        required=("batch_size", "ms"),
        batch_size=BATCH_SIZE,
        ms=ListOf(Number(null=False), null=False),
        phase=TEXT,
        start=INT,
        block=INT,
        own_ms=ListOf(NUM),
        loss=ListOf(NUM),
        samples=ListOf(INT),
        tokens=ListOf(INT),
    ),
    "script": _event(
        ScriptEvent,
        batch_size=INT,
        kind=TEXT,
        text=TEXT,
        file=TEXT,
        line=INT,
        skipped=INT,
        steps=INT,
    ),
    "memory": _event(
        MemoryEvent,
        required=("batch_size",),
        batch_size=BATCH_SIZE,
        step=INT,
        rss_mb=NUM,
        cuda_alloc_mb=NUM,
        cuda_reserved_mb=NUM,
    ),
    "compile": _event(
        CompileEvent,
        required=("batch_size",),
        batch_size=BATCH_SIZE,
        step=Integer(null=False),
        kind=TEXT,
        reason=TEXT,
        frame=TEXT,
        seconds=NUM,
        backend_s=NUM,
        inductor_s=NUM,
        code_gen_s=NUM,
        backward_s=NUM,
        fx_cache_hits=INT,
        fx_cache_misses=INT,
        aot_cache_hits=INT,
        aot_cache_misses=INT,
        fail_type=TEXT,
        file=TEXT,  # where in the user's code, as session_schema.WHERE
        line=INT,
    ),
    "graph_break": _event(
        GraphBreakEvent,
        required=("batch_size",),
        batch_size=BATCH_SIZE,
        step=INT,
        reason=TEXT,
        explanation=TEXT,
        hints=TEXTS,
        text=TEXT,
        file=TEXT,  # where in the user's code, as session_schema.WHERE
        line=INT,
    ),
    "fallback": _event(
        FallbackEvent, with_fields(FALLBACK, batch_size=BATCH_SIZE), required=("batch_size",)
    ),
    "cudagraph_skip": _event(
        CudagraphSkipEvent,
        with_fields(CUDAGRAPH_SKIP, batch_size=BATCH_SIZE),
        required=("batch_size",),
    ),
    "explain": _event(ExplainEvent, EXPLAIN),
    "block_done": _event(
        BlockDoneEvent,
        batch_size=INT,
        block=INT,
        steps=INT,
        quiet=FLAG,
        waited_s=NUM,
        random_wait_s=NUM,
        busy_elsewhere=NUM,
        contended=FLAG,
        reference_us=NUM,
        reference_after_us=NUM,
    ),
    "bs_done": _event(
        BsDoneEvent,
        required=("batch_size",),
        batch_size=BATCH_SIZE,
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
    "accuracy": _event(
        AccuracyEvent,
        with_fields(ACCURACY, steps=INT, failed_step=INT, failed_quantities=TEXTS),
    ),
    "profile": _event(
        ProfileEvent, with_fields(PROFILE, batch_size=BATCH_SIZE), required=("batch_size",)
    ),
    "artifact": _event(ArtifactEvent, ARTIFACT),
    "cache_saved": _event(CacheSavedEvent, also=KEPT_AS_IN_THE_SESSION),
    "cache_loaded": _event(CacheLoadedEvent, also=KEPT_AS_IN_THE_SESSION),
    "log": _event(LogEvent, LOG),
    "error": _event(ErrorEvent, ERROR),
    "worker_exit": _event(WorkerExitEvent, EXIT),
    "round_end": _event(RoundEndEvent, block_wait_s=NUM),
    "run_end": _event(RunEndEvent, status=TEXT, wall_time=NUM, stopping=STOPPING),
    # the rank's own event is checked as an event of its type (event_problem)
    "rank_event": _event(
        RankEventEvent,
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
