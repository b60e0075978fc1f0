"""The words for compile figures and compiled frames, shared by the logs, the window and the
reports, so that one thing has one name and one number everywhere.

Two compile figures exist and they are different things:

- the *compile cost* (Summary's "compile s", `compile_cold_s`): how much longer the first step
  took than a steady step, plus later recompiles, minus eager's own first-step excess. It is
  what compiling costs the user, and the figure break-even is computed from.
- *torch's compile timer* (a `compile` event's `seconds`, `entire_frame_compile_time_s`): the
  time TorchDynamo spent compiling one frame, Inductor included. It is a part of the cost.

`compile_parts` splits the cost into torch's nested timers and names the remainder, so the
parts add up to the figure quoted in Summary. TorchDynamo names the code after a graph break
`torch_dynamo_resume_in_<function>_at_<line>`: `resume_explanation` says what that is.
"""

from __future__ import annotations

import re
from typing import Any

COMPILE_COST = "compile cost"
COMPILE_TIMER = "torch's compile timer"
OTHER_HELP = (
    "the first step's excess outside torch's compile timers: running the new compiled code "
    "for the first time (kernel loading, autotuning, allocator warm-up), Python tracing outside "
    "the timed phases, guard building and lazy initialisation"
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


def compile_parts(row: dict[str, Any]) -> list[tuple[str, float, str]]:
    """(part, seconds, what it is) adding up to `compile_figure(row)`.

    torch's timers nest (the frame's compile holds the backend's, which holds Inductor's, which
    holds code generation), so each part is one timer less the one inside it. The last part,
    "other", is the cost outside every timer; it is negative when eager's own first-step excess
    (subtracted from the cost) is larger than what the timers left over. Empty when the row has
    no compile cost or torch recorded no timer."""
    total = compile_figure(row)
    b = row.get("compile_breakdown") or {}
    dynamo = _num(b.get("dynamo_s"))
    if total is None or dynamo is None:
        return []
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
    parts.append(("other", total - dynamo, OTHER_HELP))
    return [(name, round(seconds, 6), help_text) for name, seconds, help_text in parts]


def parts_text(row: dict[str, Any]) -> str:
    """'compile cost 12.46 s (torch's compile timer 8.42 s of it) = TorchDynamo tracing 2.42 + …
    + other 4.04' (empty without parts)."""
    parts = compile_parts(row)
    figure = compile_figure(row)
    if not parts or figure is None:
        return ""
    timed = figure - parts[-1][1]  # what torch's timers measured: the Logs' compile lines
    return f"{COMPILE_COST} {figure:.2f} s ({COMPILE_TIMER} {timed:.2f} s of it) = " + " + ".join(
        f"{name} {seconds:.2f}" for name, seconds, _help in parts
    )
