"""Events as lines of text, written once for the terminal, the log panel and the reports.

`describe` gives the line for an event worth one (without the arm's name: each front end shows
that its own way), `phase_text` the words for a phase, `phase_words` those for the batch size
(or a script's sweep value) it runs at, and `recompile_limit_hit` the one sentence for a frame
that hit TorchDynamo's recompile limit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.compile_terms import COMPILE_TIMER, frame_text
from tcprof.profiler.protocol.events import CompileKind, EventType, Phase

FELL_BACK = "fell back to eager"
"""The status of a batch size that ran after its arm hit the recompile limit."""

PHASE_TEXT = {
    Phase.LOADING: "loading model",
    Phase.EXPLAIN: "explain pre-pass",
    Phase.COMPILING: "compiling (first step)",
    Phase.FIRST_STEP: "first step",
    Phase.WARMUP: "warm-up",
    Phase.MEASURING: "measuring",
    Phase.PROFILING: "torch.profiler pass",
    Phase.ACCURACY: "accuracy check (untimed)",
    Phase.IDLE: "waiting",
}


def recompile_limit_hit(frame: Any) -> str:
    """Hitting the limit makes every later new shape of the frame run eagerly, silently: the
    timings that follow are not compiled timings, and every reader must be told so."""
    return (
        f"recompile limit hit in {frame_text(frame)}: it runs eagerly from then on, "
        "so its timings are not compiled timings"
    )


def phase_text(phase: Any) -> str:
    return PHASE_TEXT.get(phase, str(phase))


def phase_words(batch_size: Any, script: Any = None) -> str | None:
    """What a phase runs at, as every view says it: 'bs 8' for a model file; for a script
    (`script`: its config's ScriptSource or that as a dict) its sweep's value, 'batch_size=8',
    and nothing where it has no sweep: its workers send a batch size of 1 for its one phase,
    which is no batch size of the script's."""
    if batch_size is None:
        return None
    if script is None:
        return f"bs {batch_size}"
    sweep = script_sweep(script)
    return f"{sweep}={batch_size}" if sweep else None


def script_sweep(script: Any) -> str | None:
    """The name of a script's sweep (`script`: its ScriptSource or that as a dict), if any."""
    sweep = script.get("sweep") if isinstance(script, dict) else getattr(script, "sweep", None)
    return str(sweep) if sweep else None


def _at(e: dict[str, Any], script: Any) -> str:
    words = phase_words(e.get("batch_size"), script)
    return f"{words}: " if words else ""


def _where(e: dict[str, Any]) -> str:
    return f" at {e.get('file')}:{e.get('line')}" if e.get("file") else ""


def _seconds(value: Any, before: str = " ") -> str:
    return f"{before}{units.seconds(value)}" if units.number(value) is not None else ""


def _round(e: dict[str, Any]) -> str:
    rep = e.get("replicate")
    return f" (round {rep + 1})" if isinstance(rep, int) and rep > 0 else ""


def _hello(e: dict[str, Any]) -> str:
    return (
        f"torch {e.get('torch')} · python {e.get('python')} · "
        f"{e.get('device')} ({e.get('device_name')})"
    )


def _loaded(e: dict[str, Any]) -> str:
    if e.get("input_source") == "script":
        return f"ready to run the script: {e.get('model')}"
    params = e.get("params")
    count = units.count(params) if isinstance(params, int) else "?"
    return f"loaded {e.get('model')}: {count} parameters, input {e.get('input')}"


def _round_start(e: dict[str, Any], rounds: int | None) -> str:
    rep = e.get("replicate")
    number = rep + 1 if isinstance(rep, int) else "?"
    of = f"/{rounds}" if rounds else ""
    cache = e.get("cache")
    start = f", compiled arms start from a {cache} cache" if cache and cache != "user" else ""
    return f"round {number}{of}: a fresh process per arm{start}"


def _first_step(e: dict[str, Any], at: str) -> str:
    """The first step's time holds the compile; torch's timer is the part it measured (the
    compile cost in Summary is the whole excess over a steady step, known after measuring)."""
    extra = (
        f", of which {COMPILE_TIMER} {units.seconds(e.get('compile_s') or 0)}"
        if e.get("compiles")
        else ""
    )
    return f"{at}first step{_seconds((e.get('ms') or 0) / 1000)}{extra}{_round(e)}"


def _compile(e: dict[str, Any], at: str) -> str:
    """One frame's compile by torch's timer: a part of the compile cost, never the cost."""
    what = "recompile" if e.get("kind") == CompileKind.RECOMPILE else "compile"
    reason = f": {e['reason']}" if e.get("reason") else ""
    seconds = _seconds(e.get("seconds"), ", ")
    took = f"{seconds} by {COMPILE_TIMER}" if seconds else ""
    return f"{at}TorchDynamo {what} of {frame_text(e.get('frame'))}{took}{reason}"


def _accuracy(e: dict[str, Any], at: str) -> str:
    worst = e.get("worst") or {}
    detail = (
        f" (worst: {worst.get('name')}, rel err {worst['max_rel_err']:.2g})"
        if isinstance(worst.get("max_rel_err"), (int, float))
        else ""
    )
    why = f": {e['reason']}" if e.get("status") != "pass" and e.get("reason") else ""
    return f"{at}accuracy {e.get('status')}{detail}{why}"


def error_where(e: dict[str, Any]) -> str:
    """' (file:line)' after an error's message, unless the message names that place already
    (a worker's 'RuntimeError: … (model.py:7)'): each location said once."""
    return place_text(e.get("file"), e.get("line"), e.get("message"))


def place_text(file: object, line: object, message: object) -> str:
    """`error_where` of an error already read into its fields (the window's typed errors)."""
    if not file:
        return ""
    short = f"{str(file).replace(chr(92), '/').rsplit('/', 1)[-1]}:{line}"
    return "" if short in str(message or "") else f" ({file}:{line})"


def _error(e: dict[str, Any], at: str) -> str:
    return f"ERROR {at}{e.get('kind')}: {e.get('message')}{error_where(e)}"


def _worker_exit(e: dict[str, Any]) -> str:
    return f"worker exited: {e.get('status')} {e.get('message') or ''}".rstrip()


def _explain(e: dict[str, Any], at: str) -> str:
    return (
        f"{at}explain pre-pass: {e.get('graph_count')} graph(s), "
        f"{e.get('graph_break_count')} break(s), {e.get('op_count')} op(s)"
    )


def _cache_saved(e: dict[str, Any]) -> str:
    if e.get("saved"):
        return f"portable compile cache saved: {e.get('bytes')} bytes in {e.get('path')}"
    return f"no portable compile cache saved: {e.get('reason')}"


_LINES: dict[str, Callable[[dict[str, Any], str], str]] = {
    EventType.LOG: lambda e, at: str(e.get("text", "")).rstrip(),
    EventType.HELLO: lambda e, at: _hello(e),
    EventType.LOADED: lambda e, at: _loaded(e),
    EventType.FIRST_STEP: _first_step,
    EventType.COMPILE: _compile,
    EventType.GRAPH_BREAK: lambda e, at: f"{at}graph break{_where(e)}: {e.get('reason')}",
    EventType.FALLBACK: lambda e, at: at + recompile_limit_hit(e.get("frame")),
    EventType.CUDAGRAPH_SKIP: lambda e, at: (
        f"{at}CUDA graphs skipped{_where(e)}: {e.get('reason')} (mode runs without them)"
    ),
    EventType.EXPLAIN: _explain,
    EventType.ACCURACY: _accuracy,
    EventType.SCRIPT: lambda e, at: str(e.get("text") or ""),
    EventType.ARTIFACT: lambda e, at: f"{at}wrote {e.get('kind')}: {e.get('path')}",
    EventType.CACHE_SAVED: lambda e, at: _cache_saved(e),
    EventType.CACHE_LOADED: lambda e, at: f"portable compile cache loaded: {e.get('artifacts')}",
    EventType.ERROR: _error,
    EventType.WORKER_EXIT: lambda e, at: _worker_exit(e),
    EventType.RUN_END: lambda e, at: f"run {e.get('status')}",
    EventType.ARMS_ADDED: lambda e, at: (
        "applying advice: running "
        + ", ".join(f"{a.get('label') or a.get('backend')}" for a in e.get("arms") or [])
    ),
}


def describe(event: dict[str, Any], rounds: int | None = None, script: Any = None) -> str | None:
    """The line for an event, or None for events not worth one (samples, phases, acks).
    `rounds`: the run's number of rounds, for "round 2/3"; `script`: the run's script, if it
    runs one (its phases said as `phase_words` says them)."""
    kind = event.get("type")
    if kind == EventType.ROUND_START:
        return _round_start(event, rounds)
    line = _LINES.get(kind)  # type: ignore[arg-type]
    return line(event, _at(event, script)) if line is not None else None
