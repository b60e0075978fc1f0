"""What the readers of a session rely on, checked once when a file is opened.

A session.json or an events.jsonl may come from anywhere: another version, a hand edit, a
colleague, a hostile sender. The window, the reports, compare and recovery index and format
its values, so a string where a number belongs would raise deep inside one of them. Instead a
file is checked against the shapes below when it is read, and refused with one line naming the
first problem and where it is: `arms[0].results[3].median_ms is a string, expected a number`.

Only what the readers use is described; other keys are allowed (readers ignore keys they do
not know, docs/session-format.md). Nearly every value may be null, as the engine writes NaN as
null. The checks follow the shapes' own depth (a few levels), never the data's. Qt-free.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

MAX_INT = 2**53  # beyond this an integer cannot be a float exactly (and plots need floats)
MAX_NUMBER = 1e300  # converts to a float, and sums of a few stay finite

Problem = str | None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class Shape:
    """A value's expected shape; `problem` says what is wrong with a value, or None."""

    expected = "a value"
    null = True

    def problem(self, value: Any, path: str) -> Problem:
        if value is None:
            return None if self.null else self._wrong(value, path)
        return self._check(value, path)

    def _check(self, value: Any, path: str) -> Problem:
        return None

    def _wrong(self, value: Any, path: str) -> str:
        return f"{path or 'the file'} is {_kind(value)}, expected {self.expected}"


@dataclass(frozen=True)
class Anything(Shape):
    pass


@dataclass(frozen=True)
class Number(Shape):
    null: bool = True
    expected = "a number"

    def _check(self, value: Any, path: str) -> Problem:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return self._wrong(value, path)
        if isinstance(value, float) and not math.isfinite(value):
            return f"{path} is not a finite number"
        return None if -MAX_NUMBER <= value <= MAX_NUMBER else f"{path} is out of range"

    def all_fine(self, values: list[Any]) -> bool:
        """A fast pass over a long list (samples hold millions of step times)."""
        null = self.null
        return all(
            (type(v) is float or type(v) is int)
            and -MAX_NUMBER <= v <= MAX_NUMBER
            or (null and v is None)
            for v in values
        )


@dataclass(frozen=True)
class Integer(Shape):
    null: bool = True
    expected = "an integer"

    def _check(self, value: Any, path: str) -> Problem:
        if isinstance(value, bool) or not isinstance(value, int):
            return self._wrong(value, path)
        return f"{path} is out of range" if abs(value) > MAX_INT else None


@dataclass(frozen=True)
class Text(Shape):
    null: bool = True
    expected = "a string"

    def _check(self, value: Any, path: str) -> Problem:
        return None if isinstance(value, str) else self._wrong(value, path)


@dataclass(frozen=True)
class Flag(Shape):
    null: bool = True
    expected = "true or false"

    def _check(self, value: Any, path: str) -> Problem:
        return None if isinstance(value, bool) else self._wrong(value, path)


@dataclass(frozen=True)
class Exactly(Shape):
    """One string value (the accuracy pass's `replicate`)."""

    value: str
    null: bool = False

    @property
    def expected(self) -> str:  # type: ignore[override]
        return repr(self.value)

    def _check(self, value: Any, path: str) -> Problem:
        return None if value == self.value else self._wrong(value, path)


@dataclass(frozen=True)
class OneOf(Shape):
    shapes: tuple[Shape, ...]
    null: bool = True

    @property
    def expected(self) -> str:  # type: ignore[override]
        return " or ".join(s.expected for s in self.shapes)

    def _check(self, value: Any, path: str) -> Problem:
        if any(s.problem(value, path) is None for s in self.shapes):
            return None
        return self._wrong(value, path)


@dataclass(frozen=True)
class ListOf(Shape):
    item: Shape = field(default_factory=Anything)
    null: bool = True
    length: int | None = None  # exactly this many items
    expected = "a list"

    def _check(self, value: Any, path: str) -> Problem:
        if not isinstance(value, list):
            return self._wrong(value, path)
        if self.length is not None and len(value) != self.length:
            return f"{path} holds {len(value)} items, expected {self.length}"
        if isinstance(self.item, Anything):
            return None
        if isinstance(self.item, Number) and self.item.all_fine(value):
            return None  # else the loop names the first problem
        for i, item in enumerate(value):
            problem = self.item.problem(item, f"{path}[{i}]")
            if problem:
                return problem
        return None


@dataclass(frozen=True)
class Row(Shape):
    """A list of a fixed length with a shape per position (`[replicate, block, steps]`)."""

    items: tuple[Shape, ...]
    null: bool = False
    expected = "a list"

    def _check(self, value: Any, path: str) -> Problem:
        if not isinstance(value, list):
            return self._wrong(value, path)
        if len(value) != len(self.items):
            return f"{path} holds {len(value)} items, expected {len(self.items)}"
        for i, (item, shape) in enumerate(zip(value, self.items, strict=True)):
            problem = shape.problem(item, f"{path}[{i}]")
            if problem:
                return problem
        return None


@dataclass(frozen=True)
class MapOf(Shape):
    """An object with keys of the writer's choosing (batch sizes, cache states...)."""

    value: Shape = field(default_factory=Anything)
    null: bool = True
    expected = "an object"

    def _check(self, value: Any, path: str) -> Problem:
        if not isinstance(value, dict):
            return self._wrong(value, path)
        for key, item in value.items():
            problem = self.value.problem(item, _join(path, str(key)))
            if problem:
                return problem
        return None


@dataclass(frozen=True)
class Fields(Shape):
    """An object: the listed keys have these shapes when present; `required` must be present;
    `also` checks what the shapes alone cannot (after they pass)."""

    fields: dict[str, Shape]
    required: tuple[str, ...] = ()
    null: bool = True
    also: Callable[[dict[str, Any], str], Problem] | None = None
    expected = "an object"

    def _check(self, value: Any, path: str) -> Problem:
        if not isinstance(value, dict):
            return self._wrong(value, path)
        for key in self.required:
            if key not in value:
                return f"{_join(path, key)} is missing"
        for key, shape in self.fields.items():
            if key in value:
                problem = shape.problem(value[key], _join(path, key))
                if problem:
                    return problem
        return self.also(value, path) if self.also else None


def with_fields(base: Fields, required: tuple[str, ...] = (), **more: Shape) -> Fields:
    """`base` with more fields (and more of them required)."""
    return Fields({**base.fields, **more}, (*base.required, *required), base.null, base.also)


def _line_with_file(entry: dict[str, Any], path: str) -> Problem:
    """Readers show `file:line` whenever there is a file."""
    if entry.get("file") and "line" not in entry:
        return f"{_join(path, 'line')} is missing (the entry names a file)"
    return None


NUM, INT, TEXT, FLAG = Number(), Integer(), Text(), Flag()
TEXTS = ListOf(Text(null=False))
WHERE = {"file": TEXT, "line": INT}  # a place in the user's code

# -- the pieces an event and session.json share --------------------------------------------------
ENVIRONMENT = Fields(
    {
        "protocol": INT,
        "torch": TEXT,
        "python": TEXT,
        "platform": TEXT,
        "device": TEXT,
        "device_name": TEXT,
        "cpu": TEXT,
        "cpu_count": INT,
        "torch_threads": INT,
        "cuda": TEXT,
        "cuda_available": FLAG,
        "devices": TEXTS,
        "backends": TEXTS,
        "pid": INT,
        "cuda_memory_mb": NUM,
    }
)
LOADED = Fields(
    {
        "model": TEXT,
        "params": INT,
        "input": TEXT,
        "input_source": TEXT,
        "cache_dir": TEXT,
        "threads": INT,
        "candidates": ListOf(MapOf()),
    }
)
ERROR_BRIEF = Fields({"kind": TEXT, "message": TEXT, **WHERE})
ERROR = with_fields(
    ERROR_BRIEF,
    exception=TEXT,
    traceback=TEXT,
    batch_size=INT,
    fatal=FLAG,
    arm=INT,
)
WORST = Fields({"name": TEXT, "max_abs_err": Number(null=False), "max_rel_err": Number(null=False)})
ACCURACY = Fields(
    {
        "batch_size": INT,
        "status": TEXT,
        "worst": WORST,
        "reason": TEXT,
        "float64": FLAG,
        "rtol": NUM,
        "atol": NUM,
        "compared": INT,
    }
)
TOP_OP = Fields({"name": TEXT, "calls": NUM, "self_ms_per_step": NUM, "total_ms_per_step": NUM})
PROFILE = Fields({"steps": INT, "path": TEXT, "top_ops": ListOf(TOP_OP)})
ARTIFACT = Fields(
    {
        "kind": TEXT,
        "path": TEXT,
        "batch_size": INT,
        "format": TEXT,
        "tensors": INT,
        "verified": FLAG,
    }
)
LOG = Fields({"arm": INT, "stream": TEXT, "text": TEXT, "artifact": TEXT, "t": NUM})
EXIT = Fields({"status": TEXT, "code": INT, "signal": OneOf((TEXT, INT)), "message": TEXT})
EXPLAIN = Fields(
    {
        "batch_size": INT,
        "graph_count": INT,
        "graph_break_count": INT,
        "op_count": INT,
        "break_reasons": ListOf(MapOf()),
    }
)
CACHE_COUNTS = MapOf(INT)
CACHE_EVENT = Fields(
    {
        "saved": FLAG,
        "loaded": FLAG,
        "path": TEXT,
        "bytes": INT,
        "artifacts": CACHE_COUNTS,
        "reason": TEXT,
    }
)
RECOMPILE = Fields(
    {
        "batch_size": INT,
        "step": INT,
        "reason": TEXT,
        "frame": TEXT,
        "seconds": NUM,
        **WHERE,
    },
    required=("batch_size", "reason"),
    also=_line_with_file,
)
FALLBACK = Fields({"batch_size": INT, "step": INT, "frame": TEXT, "reason": TEXT, **WHERE})

# -- config ---------------------------------------------------------------------------------------
ARM_SPEC = Fields(
    {
        "backend": Text(null=False),
        "mode": TEXT,
        "dynamic": FLAG,
        "fullgraph": FLAG,
        "label": TEXT,
    }
)
CONFIG = Fields(
    {
        "source": Fields({"path": TEXT, "model": TEXT, "factory": TEXT, "input_shape": TEXT}),
        "arms": ListOf(ARM_SPEC),
        "batch_sizes": ListOf(Integer(null=False)),
        "warmup": INT,
        "steps": INT,
        "blocks": INT,
        "sequential": FLAG,
        "device": TEXT,
        "optimizer": TEXT,
        "lr": NUM,
        "seed": INT,
        "replicates": INT,
        "control": FLAG,
        "threads": INT,
        "warm_cache": FLAG,
        "min_block_ms": NUM,
        "accuracy": FLAG,
        "accuracy_rtol": NUM,
        "accuracy_atol": NUM,
        "timeout_s": NUM,
        "artifacts_dir": TEXT,
        "save_weights": TEXT,
        "profile_steps": INT,
        "debug": Fields(
            {
                "logs": TEXTS,
                "verbose": FLAG,
                "suppress_errors": FLAG,
                "fail_on_recompile": FLAG,
                "explain": FLAG,
                "compile_debug": FLAG,
                "trace": FLAG,
                "memory_snapshot": FLAG,
            }
        ),
    }
)

# -- session.json ---------------------------------------------------------------------------------
REPLICATE = OneOf((INT, Exactly("accuracy")))
MS_LIST = ListOf(Number(null=False))
RESULT_NUMBERS = (
    "first_step_ms",
    "median_ms",
    "p10_ms",
    "p90_ms",
    "mean_ms",
    "iqr_ms",
    "samples_per_s",
    "compile_s",
    "compile_cold_s",
    "compile_warm_s",
    "compile_portable_s",
    "break_even_steps",
    "break_even_cold_steps",
    "break_even_warm_steps",
    "dynamo_compile_s",
    "steady_peak_mb",
    "compile_peak_mb",
    "peak_rss_mb",
    "peak_cuda_mb",
    "peak_cuda_reserved_mb",
    "first_loss",
    "first_grad_norm",
    "last_loss",
    "speedup",
    "memory_ratio",
)
RESULT = Fields(
    {
        "batch_size": Integer(null=False),
        "status": Text(null=False),
        "error": ERROR_BRIEF,
        **{name: NUM for name in RESULT_NUMBERS},
        "process_medians_ms": ListOf(NUM),
        "replicates": INT,
        "steps": INT,
        "warmup_steps": INT,
        "compile_cache": MapOf(MapOf(INT)),
        "compile_missing": MapOf(TEXT),
        "graphs": INT,
        "recompiles": INT,
        "graph_breaks": INT,
        "fell_back": FLAG,
        "compile_status": TEXT,
        "compiled_while_measuring": FLAG,
        "steady_peak_method": TEXT,
        "speedup_ci": ListOf(Number(null=False), length=2),
        "speedup_method": TEXT,
        "interval_covers_processes": FLAG,
        "verdict": TEXT,
        "accuracy": ACCURACY,  # schema 1's (loss, grad norm) has other keys: allowed
        "noisy": FLAG,
        "unquiet_blocks": INT,
        "compile_breakdown": Fields(
            {
                "compiles": INT,
                "dynamo_s": NUM,
                "backend_s": NUM,
                "inductor_s": NUM,
                "code_gen_s": NUM,
                "fx_cache_hits": INT,
                "fx_cache_misses": INT,
                "fx_cache": TEXT,
            }
        ),
        "profile": PROFILE,
    },
    required=("batch_size", "status"),
)
GRAPH_BREAK = Fields(
    {
        "reason": TEXT,
        "explanation": TEXT,
        "hints": TEXTS,
        "count": INT,
        "batch_sizes": ListOf(INT),
        **WHERE,
    },
    required=("reason", "count"),
    also=_line_with_file,
)
ARM = Fields(
    {
        "index": INT,
        "name": Text(null=False),
        "backend": TEXT,
        "options": Fields({"mode": TEXT, "dynamic": FLAG, "fullgraph": FLAG}),
        "error": with_fields(ERROR_BRIEF, required=("kind", "message")),
        "model": LOADED,
        "exit": EXIT,
        "pid": INT,
        "results": ListOf(RESULT, null=False),
        "graph_breaks": ListOf(GRAPH_BREAK),
        "recompiles": ListOf(RECOMPILE),
        "fallbacks": ListOf(FALLBACK),
        "explain": EXPLAIN,
        "artifacts": ListOf(ARTIFACT),
        "caches": MapOf(TEXT),
        "cache_events": ListOf(CACHE_EVENT),
    },
    required=("name", "results"),
)


def _blocks_fit(sample: dict[str, Any], path: str) -> Problem:
    """`blocks` splits `ms` into [replicate, block, steps]: their steps cannot outnumber it."""
    counted = sum(max(0, b[2] or 0) for b in sample.get("blocks") or [])
    held = len(sample.get("ms") or [])
    if counted > held:
        return f"{_join(path, 'blocks')} counts {counted} steps, but ms holds {held}"
    return None


SAMPLE = Fields(
    {
        "arm": TEXT,
        "batch_size": INT,
        "warmup_ms": MS_LIST,
        "ms": MS_LIST,
        "blocks": ListOf(Row((REPLICATE, INT, INT))),
        "memory": ListOf(ListOf(NUM, null=False)),
    },
    also=_blocks_fit,
)
SESSION = Fields(
    {
        "schema_version": INT,
        "status": TEXT,
        "started_at": NUM,
        "ended_at": NUM,
        "environment": ENVIRONMENT,
        "config": CONFIG,
        "baseline": TEXT,
        "rounds": ListOf(Fields({"replicate": REPLICATE, "cache": TEXT, "order": TEXTS})),
        "arms": ListOf(ARM, null=False),
        "errors": ListOf(ERROR),
        "samples": ListOf(SAMPLE),
        "logs": ListOf(LOG),
    },
    required=("arms",),
    null=False,
)

# -- events.jsonl ---------------------------------------------------------------------------------
RELAYED = Fields(
    {"type": Text(null=False), "arm": INT, "replicate": REPLICATE, "t": NUM}, required=("type",)
)
AT = {"batch_size": Integer(null=False)}  # events about one batch size of a timed process


def _event(base: Fields | None = None, required: tuple[str, ...] = (), **fields: Shape) -> Fields:
    merged = with_fields(base, **fields) if base is not None else Fields(fields)
    return with_fields(RELAYED, required, **merged.fields)


EVENTS: dict[str, Fields] = {
    "run_start": _event(required=("config",), config=replace(CONFIG, null=False), wall_time=NUM),
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
}


# -- checking -------------------------------------------------------------------------------------
def session_problem(session: Any) -> Problem:
    """The first thing in a session dict a reader could not use, as one line, or None."""
    return SESSION.problem(session, "")


def config_problem(config: Any) -> Problem:
    """The first thing wrong with a session's `config` (the Sessions list reads it alone)."""
    return replace(CONFIG, null=False).problem(config, "config")


def event_problem(event: Any) -> Problem:
    """The first field of an event its readers could not use, or None. Types the readers do
    not fold are checked for the relayed fields only."""
    if not isinstance(event, dict):
        return f"the event is {_kind(event)}, expected an object"
    kind = event.get("type")
    shape = EVENTS.get(kind) if isinstance(kind, str) else None
    problem = (shape or RELAYED).problem(event, "")
    return f"{kind} event: {problem}" if problem and isinstance(kind, str) else problem
