"""The words for compile figures and compiled frames, shared by the logs, the window and the
reports, so that one thing has one name and one number everywhere.

Two compile figures exist and they are different things:

- the *compile cost* (Summary's "compile s", `compile_cold_s`): the time the process spent
  compiling by torch's compile events, wherever they ran (before training, in a step, in an
  evaluation). It is what compiling costs the user; break-even adds what the first step paid
  beyond compiling (`first_step_extra_s`). Sessions saved before 2026-12, and processes that
  sent no compile event, hold the older figure: the first step's excess over a steady step,
  plus later recompiles, minus eager's own first-step excess.
- *torch's compile timer* (a `compile` event's `seconds`, `entire_frame_compile_time_s`): the
  time TorchDynamo spent compiling one frame, Inductor included. It is a part of the cost.

`compile_parts` splits the cost into torch's nested timers and names the remainder, so the
parts add up to the figure quoted in Summary (report/sections/compile_list.py lists each compile). TorchDynamo names the code after a graph break
`torch_dynamo_resume_in_<function>_at_<line>`: `resume_explanation` says what that is.
"""

from __future__ import annotations

import re
from typing import Any

from tcprof.profiler.protocol import units

COMPILE_COST = "compile cost"
COMPILE_TIMER = "torch's compile timer"
OTHER_HELP = (
    "the first step's excess outside torch's compile timers: running the new compiled code "
    "for the first time (kernel loading, autotuning, allocator warm-up), Python tracing outside "
    "the timed phases, guard building and lazy initialisation"
)
OTHER_EVENTS_HELP = (
    "torch's compile events outside its nested timers (near zero: the cost is the sum of those "
    "events); what the first step paid beyond compiling is a part of its own, outside the cost"
)
_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<function>.+)_at_(?P<line>\d+)$")


def resume_parts(frame: Any) -> tuple[str, int] | None:
    """(function, line) of a resume function's name, or None for any other frame."""
    match = _RESUME.match(str(frame or ""))
    return (match["function"], int(match["line"])) if match else None


def resume_explanation(frame: Any) -> str | None:
    """'the rest of `forward` after the graph break at line 16, compiled as its own graph'."""
    parts = resume_parts(frame)
    if parts is None:
        return None
    function, line = parts
    return (
        f"the rest of `{function}` after the graph break at line {line}, compiled as its own graph"
    )


def frame_text(frame: Any) -> str:
    """A frame's name, with the explanation after it when it is a resume function."""
    name = str(frame or "?")
    why = resume_explanation(frame)
    return f"{name} ({why})" if why else name


def frame_label(frame: Any) -> str:
    """A short label for a table cell: 'forward after line 16' for a resume function."""
    parts = resume_parts(frame)
    return f"{parts[0]} after line {parts[1]}" if parts else str(frame or "?")


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def compile_figure(row: dict[str, Any]) -> float | None:
    """The compile cost of one batch size: the cold one, or the only one a session has."""
    cold = _num(row.get("compile_cold_s"))
    return cold if cold is not None else _num(row.get("compile_s"))


def by_events(row: dict[str, Any]) -> bool:
    """Whether the row's compile cost is the sum of torch's compile events (each compile
    listed), not the first step's wall-clock excess of older sessions."""
    return bool(row.get("compiles_list") or row.get("compile_check"))


def other_help(row: dict[str, Any]) -> str:
    """What the remainder "other" is for this row's kind of compile cost."""
    return OTHER_EVENTS_HELP if by_events(row) else OTHER_HELP


SPLIT_TOLERANCE_S = 0.01  # a part this far below zero is rounding; further, the split is wrong


def _timers(row: dict[str, Any]) -> tuple[float | None, list[tuple[str, float, str]]]:
    """(the cost, the timers' parts) before the remainder is taken."""
    total = compile_figure(row)
    b = row.get("compile_breakdown") or {}
    dynamo = _num(b.get("dynamo_s"))
    if total is None or dynamo is None:
        return None, []
    backend = _num(b.get("backend_s"))
    inductor = _num(b.get("inductor_s"))
    code_gen = _num(b.get("code_gen_s"))
    nested = [
        ("TorchDynamo tracing", dynamo, backend, "capturing the Python code into FX graphs"),
        (
            "AOTAutograd and backend",
            backend,
            inductor,
            "tracing the backward, decompositions, partitioning (the backend outside Inductor)",
        ),
        ("Inductor lowering", inductor, code_gen, "Inductor's lowering and scheduling"),
        ("Inductor code generation", code_gen, None, "generating and compiling the kernels"),
    ]
    parts = [
        (name, outer - (inner or 0.0), help_text)
        for name, outer, inner, help_text in nested
        if outer is not None
    ]
    backward = _num(b.get("backward_s"))
    if backward:
        parts.append((BACKWARD_PART, backward, BACKWARD_HELP))
    return total, parts


BACKWARD_PART = "backward compile"
BACKWARD_HELP = (
    "AOTAutograd compiles the backward lazily, during the first backward; torch times it apart "
    "from the frame's compile"
)


def compile_parts(row: dict[str, Any]) -> list[tuple[str, float, str]]:
    """(part, seconds, what it is) adding up to `compile_figure(row)`, none negative.

    torch's timers nest (the frame's compile holds the backend's, which holds Inductor's, which
    holds code generation), so each part is one timer less the one inside it; the backward's
    lazy compile is timed apart and is a part of its own. The last part, "other", is the cost
    outside every timer. Empty when the row has no compile cost, torch recorded no timer, or
    the split cannot be made (`split_problem` says why)."""
    total, parts = _timers(row)
    if total is None or not parts:
        return []
    parts.append(("other", total - sum(seconds for _n, seconds, _h in parts), other_help(row)))
    if any(seconds < -SPLIT_TOLERANCE_S for _n, seconds, _h in parts):
        return []
    return [(name, round(max(0.0, seconds), 6), help_text) for name, seconds, help_text in parts]


def split_problem(row: dict[str, Any]) -> str | None:
    """Why the compile cost has no split, in one sentence (None when it has one)."""
    total, parts = _timers(row)
    if total is None:
        return None
    if not parts:
        return "torch recorded no compile timer for this batch size"
    timed = sum(seconds for _n, seconds, _h in parts)
    if any(seconds < -SPLIT_TOLERANCE_S for _n, seconds, _h in parts):
        return "torch's nested compile timers disagree with each other (an inner one is longer)"
    if total - timed < -SPLIT_TOLERANCE_S:
        return (
            f"{COMPILE_TIMER} ({units.seconds(timed)}) is longer than the {COMPILE_COST} "
            f"({units.seconds(total)}): "
            "this session's cost is the older figure, the first step's excess less eager's own "
            "first-step excess, which leaves out compiles before the first step (an evaluation "
            "before training, a compiled helper) and takes eager's one-off work (lazy "
            "initialisation, first allocations) out of the compiled arm's, so it cannot be "
            "split into timers and a remainder; a new run counts every compile"
        )
    return None


def parts_text(row: dict[str, Any]) -> str:
    """'compile cost 12.46 s (torch's compile timer 8.42 s of it) = TorchDynamo tracing 2.42 + …
    + other 4.04' (empty without parts)."""
    parts = compile_parts(row)
    figure = compile_figure(row)
    if not parts or figure is None:
        return ""
    timed = figure - parts[-1][1]  # what torch's timers measured: the Logs' compile lines
    head = (
        f"{COMPILE_COST} {units.seconds(figure)} ({COMPILE_TIMER} {units.seconds(timed)} of it) = "
    )
    return head + " + ".join(
        f"{name} {units.seconds(seconds, unit=False)}" for name, seconds, _help in parts
    )
