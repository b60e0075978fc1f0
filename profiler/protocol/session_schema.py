"""What the readers of session.json rely on, checked once when a file is opened.

A session.json may come from anywhere: another version, a hand edit, a colleague, a hostile
sender. The window, the reports, compare and recovery index and format its values, so a string
where a number belongs would raise deep inside one of them. Instead the file is checked against
the shapes below (profiler/protocol/shapes.py) when it is read, and refused with one line naming the
first problem and where it is: `arms[0].results[3].median_ms is a string, expected a number`.

Only what the readers use is described; other keys are allowed (readers ignore keys they do
not know, docs/session-format.md). Nearly every value may be null, as the engine writes NaN as
null. The pieces an event shares with session.json (environment, errors, logs...) are declared
here too; the events themselves are in profiler/protocol/event_schema.py. Qt-free.
"""

from __future__ import annotations

from typing import Any

from tcprof.profiler.protocol.shapes import (
    Exactly,
    Fields,
    Flag,
    Integer,
    ListOf,
    MapOf,
    Number,
    OneOf,
    Problem,
    Row,
    Text,
    join,
    with_fields,
)


def _line_with_file(entry: dict[str, Any], path: str) -> Problem:
    """Readers show `file:line` whenever there is a file."""
    if entry.get("file") and "line" not in entry:
        return f"{join(path, 'line')} is missing (the entry names a file)"
    return None


NUM, INT, TEXT, FLAG = Number(), Integer(), Text(), Flag()
TEXTS = ListOf(Text(null=False))
WHERE = {"file": TEXT, "line": INT}  # a place in the user's code

# -- the pieces an event and session.json share --------------------------------------------------
ENVIRONMENT = Fields(
    {
        "protocol": INT,
        "torch": TEXT,
        "triton": TEXT,
        "python": TEXT,
        "executable": TEXT,
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
# where the run's code came from (config/provenance.py), gathered by the engine before the run
GIT = Fields(
    {
        "commit": TEXT,
        "short": TEXT,
        "branch": TEXT,  # null: a detached HEAD
        "dirty": FLAG,  # null: unknown (no git binary)
        "root": TEXT,
        "path": TEXT,  # the model file or script, relative to root
    }
)
PROVENANCE = Fields({"tcprof": TEXT, "git": GIT})
LOADED = Fields(
    {
        "model": TEXT,
        "params": INT,
        "input": TEXT,
        "input_source": TEXT,
        "cache_dir": TEXT,
        "threads": INT,
        "candidates": ListOf(MapOf()),
        "parallel": Fields({"parallel": TEXT, "world_size": INT}),  # a distributed arm
        "cpu_check": Fields(
            {
                "seconds": NUM,
                "built": FLAG,
                "first_s": NUM,
                "isas": TEXTS,
                "seeded": INT,
                "other_files": INT,
                "error": TEXT,
            }
        ),
    }
)
ERROR_BRIEF = Fields(
    {"kind": TEXT, "message": TEXT, **WHERE, "steps_run": INT}, also=_line_with_file
)
ERROR = with_fields(
    ERROR_BRIEF,
    exception=TEXT,
    traceback=TEXT,
    batch_size=INT,
    fatal=FLAG,
    arm=INT,
)
# An error is infinite (written as null) when the tensors cannot be compared at all.
WORST = Fields({"name": TEXT, "max_abs_err": NUM, "max_rel_err": NUM})


def _tolerances_together(acc: dict[str, Any], path: str) -> Problem:
    """Readers print `rtol R, atol A` whenever rtol is set."""
    if acc.get("rtol") is not None and acc.get("atol") is None:
        return f"{join(path, 'atol')} is null while rtol is set"
    return None


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
        "fallback_random": FLAG,  # a script's judged run had fallback_random on
    },
    also=_tolerances_together,
)
TOP_OP = Fields({"name": TEXT, "calls": NUM, "self_ms_per_step": NUM, "total_ms_per_step": NUM})
PROFILE = Fields(
    {
        "steps": INT,
        "path": TEXT,
        "top_ops": ListOf(TOP_OP),
        "step_ms": NUM,  # the profiled steps' wall time each
        "quiet": FLAG,
        "mismatch": TEXT,  # why it does not describe the measured step (analysis.profile_check)
    }
)
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
CUDAGRAPH_SKIP = Fields({"batch_size": INT, "step": INT, "reason": TEXT, "count": INT, **WHERE})

# -- config ---------------------------------------------------------------------------------------
ARM_SPEC = Fields(
    {
        "backend": Text(null=False),
        "mode": TEXT,
        "dynamic": FLAG,
        "fullgraph": FLAG,
        "label": TEXT,
        "python": TEXT,  # the arm's own interpreter (`python=`)
    }
)
CONFIG = Fields(
    {
        "source": Fields({"path": TEXT, "model": TEXT, "factory": TEXT, "input_shape": TEXT}),
        "arms": ListOf(ARM_SPEC, null=False),  # read with .get(key, default): never null
        "batch_sizes": ListOf(Integer(null=False), null=False),
        "warmup": INT,
        "steps": INT,
        "blocks": INT,
        "sequential": FLAG,
        "device": TEXT,
        "optimizer": TEXT,
        "lr": NUM,
        "seed": INT,
        "replicates": INT,
        "stop_early": FLAG,
        "precision": NUM,
        "budget_s": NUM,
        "control": OneOf((FLAG, TEXT)),  # schema 3: "eager" | "compiled" | "both"; before: a flag
        "threads": INT,
        "nproc": INT,
        "nnodes": INT,
        "parallel": TEXT,
        "warm_cache": FLAG,
        "portable_round": FLAG,
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
    },
    null=False,  # read with .get("config", {}): never null
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
    "compile_timer_s",
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
    "speedup_p",
    "aa_speedup",
    "memory_ratio",
    "rss_ratio",
    "first_step_extra_s",
)
BREAK_EVEN_CI = ListOf(NUM, length=2)  # [low, high]; high null: within noise it may never pay back
RESULT = Fields(
    {
        "batch_size": Integer(null=False),
        "status": Text(null=False),
        "error": ERROR_BRIEF,
        "steps_planned": INT,
        "steps_measured": INT,
        "steps_per_process": ListOf(INT),
        "partial": FLAG,  # sessions saved before it have none: not partial
        **{name: NUM for name in RESULT_NUMBERS},
        "process_medians_ms": ListOf(NUM),
        "replicates": INT,
        "steps": INT,
        "warmup_steps": INT,
        "compile_cache": MapOf(MapOf(INT)),
        "compile_rounds": MapOf(ListOf(ListOf(Number(null=False), length=2))),  # [round, s]
        "compile_missing": MapOf(TEXT),
        "graphs": INT,
        "recompiles": INT,
        "graph_breaks": INT,
        "fell_back": FLAG,
        "compile_status": TEXT,
        "compiled_while_measuring": FLAG,
        "steady_peak_method": TEXT,
        "speedup_ci": ListOf(Number(null=False), length=2),
        "speedup_ci_simultaneous": ListOf(Number(null=False), length=2),
        "interval_level": NUM,
        "speedup_method": TEXT,
        "interval_covers_processes": FLAG,
        "verdict": TEXT,
        "holds_after_adjustment": FLAG,
        "break_even_ci": BREAK_EVEN_CI,
        "break_even_cold_ci": BREAK_EVEN_CI,
        "break_even_warm_ci": BREAK_EVEN_CI,
        "aa_of": TEXT,
        "aa_ci": ListOf(Number(null=False), length=2),
        "aa_flagged": FLAG,
        "accuracy": ACCURACY,  # schema 1's (loss, grad norm) has other keys: allowed
        "noisy": FLAG,
        "unquiet_blocks": INT,
        "contended_blocks": INT,
        "blocks_measured": INT,
        "unsteady_blocks": INT,
        "reference_us": ListOf(Number(null=False), length=2),
        "compile_breakdown": Fields(
            {
                "compiles": INT,
                "dynamo_s": NUM,
                "backend_s": NUM,
                "inductor_s": NUM,
                "code_gen_s": NUM,
                "backward_s": NUM,
                "fx_cache_hits": INT,
                "fx_cache_misses": INT,
                "fx_cache": TEXT,
            }
        ),
        "compiles_list": ListOf(
            Fields(
                {
                    "compile_id": TEXT,
                    "kind": TEXT,
                    "when": TEXT,
                    "at_step": INT,
                    "frame": TEXT,
                    **WHERE,
                    "site_file": TEXT,
                    "site_line": INT,
                    "grad_mode": FLAG,
                    "shapes": ListOf(ListOf(INT)),
                    "reason": TEXT,
                    "seconds": NUM,
                    "share": NUM,
                }
            )
        ),
        "compile_check": Fields({"events_s": NUM, "excess_s": NUM, "residual_s": NUM}),
        "profile": PROFILE,
        "world_size": INT,
        "global_batch_size": INT,
        "ranks": ListOf(
            Fields(
                {
                    "rank": Integer(null=False),
                    "node": INT,
                    "host": TEXT,
                    "median_ms": NUM,
                    "p90_ms": NUM,
                    "steps": INT,
                    "steady_peak_mb": NUM,
                    "compile_cold_s": NUM,
                    "compile_s": NUM,  # a compiled arm's: session/rank_figures.py
                    "graphs": INT,
                    "recompiles": INT,
                    "recompile_reasons": TEXTS,
                    "graph_breaks": INT,
                    "fell_back": FLAG,
                    "guards": INT,
                    "ddp_subgraphs": INT,
                    "ddp_splits": INT,
                },
                required=("rank",),
            )
        ),
    },
    required=("batch_size", "status"),
)
GRAPH_BREAK = Fields(
    {
        "reason": TEXT,
        "explanation": TEXT,
        "hints": TEXTS,
        "count": INT,
        "batch_sizes": ListOf(INT, null=False),
        **WHERE,
    },
    required=("reason", "count"),
    also=_line_with_file,
)
# the interpreter an arm's workers ran: its own (`python=`) or the engine's, from its hello
INTERPRETER = Fields({"path": TEXT, "version": TEXT, "torch": TEXT, "triton": TEXT})
ARM = Fields(
    {
        "index": INT,
        "name": Text(null=False),
        "backend": TEXT,
        "options": Fields({"mode": TEXT, "dynamic": FLAG, "fullgraph": FLAG}),
        "error": with_fields(ERROR_BRIEF, required=("kind", "message")),
        "model": LOADED,
        "environment": ENVIRONMENT,  # schema 4: the arm's own interpreter, torch and triton
        "exit": EXIT,
        "pid": INT,
        "python": INTERPRETER,
        "world_size": INT,
        "results": ListOf(RESULT, null=False),
        "graph_breaks": ListOf(GRAPH_BREAK, null=False),
        "recompiles": ListOf(RECOMPILE, null=False),
        "fallbacks": ListOf(FALLBACK, null=False),
        "cudagraph_skips": ListOf(CUDAGRAPH_SKIP, null=False),
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
        return f"{join(path, 'blocks')} counts {counted} steps, but ms holds {held}"
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
# how the rounds were seeded (run/draws.py); a session before it has none
SEEDING = Fields(
    {
        "per_round": FLAG,
        "accuracy_seed": INT,
        "wait_max_s": NUM,
        "script_own_seed": TEXT,
        "order_randomised": FLAG,
    }
)
ROUND = Fields(
    {"replicate": REPLICATE, "cache": TEXT, "order": TEXTS, "seed": INT, "block_wait_s": NUM}
)
# which sessions measure the same thing (model/series.py)
SERIES = Fields({"key": TEXT, "version": INT, "text": TEXT, "parts": MapOf()})
# where the run's time went (analysis/timeline.py): each process's spans, the totals
SPAN = Fields(
    {"start": NUM, "end": NUM, "what": TEXT, "category": TEXT, "batch_size": INT, "count": INT},
    required=("start", "end", "category"),
)
TIMELINE = Fields(
    {
        "wall_s": NUM,
        "totals": MapOf(NUM),
        "gaps_s": NUM,
        "lanes": ListOf(
            Fields(
                {
                    "arm": INT,
                    "name": TEXT,
                    "round": OneOf((REPLICATE, Exactly("preflight"))),  # the engine's lane
                    "cache": TEXT,
                    "spans": ListOf(SPAN, null=False),
                }
            ),
            null=False,
        ),
    }
)
# why a run that stops when settled stopped, its looks and the level of its intervals
STOPPING = Fields(
    {
        "reason": TEXT,
        "rounds": INT,
        "looks": ListOf(INT),
        "level": NUM,
        "precision": NUM,
        "budget_s": NUM,
    }
)
SESSION = Fields(
    {
        "schema_version": INT,
        "status": TEXT,
        "started_at": NUM,
        "ended_at": NUM,
        "environment": ENVIRONMENT,
        "provenance": PROVENANCE,  # schema 4
        "series": SERIES,  # schema 4; computed when an older session is read
        "timeline": TIMELINE,  # absent from sessions before it
        "config": CONFIG,
        "baseline": TEXT,
        "rounds": ListOf(ROUND),
        "seeding": SEEDING,
        "stopping": STOPPING,  # schema 4: a run that stops when settled (analysis/stopping.py)
        "schedule": Fields(
            {
                "design": TEXT,
                "period": INT,
                "rounds": INT,
                "balanced": FLAG,
                "note": TEXT,
                "positions": MapOf(ListOf(INT)),
            }
        ),
        "comparisons": Fields(
            {
                "count": INT,
                "tested": INT,
                "level": NUM,
                "adjustment": TEXT,
                "family_alpha": NUM,
                "differences": INT,
                "hold": INT,
            }
        ),
        "arms": ListOf(ARM, null=False),
        "errors": ListOf(ERROR),
        "samples": ListOf(SAMPLE),
        "logs": ListOf(LOG),
    },
    required=("arms",),
    null=False,
)


# -- checking -------------------------------------------------------------------------------------
def session_problem(session: Any) -> Problem:
    """The first thing in a session dict a reader could not use, as one line, or None."""
    return SESSION.problem(session, "")
