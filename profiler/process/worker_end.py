"""What to tell the user when a worker ended unasked or stalled: how, where, and its last words.

A worker may end only when told to (`exit`). Any other end — a signal, an exit code (0 included:
a model that calls `os._exit(0)` or `sys.exit()`), an event channel that closed — is an error of
its arm, named with the phase and batch size it was in and the last lines the worker printed
(a segfault's Python stack among them: workers run with faulthandler on).
"""

from __future__ import annotations

from typing import Any

PHASE_WORDS = {
    "loading": "loading the model",
    "explain": "the explain pre-pass",
    "compiling": "the first step (compiling)",
    "first_step": "the first step",
    "warmup": "warm-up",
    "measuring": "a measured block",
    "profiling": "the profiler pass",
    "accuracy": "the accuracy check",
}
MESSAGE_TAIL_LINES = 3  # of the worker's output, in the one-line message
MESSAGE_TAIL_CHARS = 300
FATAL_MARK = "Fatal Python error"  # faulthandler's first line


def place(phase: str | None, command: dict[str, Any] | None, batch_size: int | None) -> str | None:
    """What the worker was doing: 'the first step at batch size 32', "the 'save_cache'
    command"; None when it had nothing to do."""
    if phase in PHASE_WORDS:
        what = PHASE_WORDS[phase]
    elif command is not None:
        what = f"the {command.get('cmd')!r} command"
        batch_size = command.get("batch_size", batch_size)
    else:
        return None
    return f"{what} at batch size {batch_size}" if batch_size else what


def end_message(info: dict[str, Any], where: str | None, closed: str | None = None) -> str:
    """One line: how the worker ended (info: worker_handle.classify_exit) and where. closed:
    the pipe ("event channel", "command pipe") found closed while the process still ran."""
    during = f"during {where}" if where else "while idle"
    status, code = info.get("status"), info.get("code")
    if status == "normal":
        how, hint = "exited with code 0", " (the model ended its own process?)"
    elif status == "error":
        how, hint = f"exited with code {code}", ""
    elif status == "signal":
        how, hint = f"was killed by {info.get('signal')}", ""
        if "out-of-memory" in str(info.get("message")):
            hint = " (possibly the out-of-memory killer)"
    else:  # stopped by the engine after its channel closed
        how, hint = "was stopped", ""
    if closed:
        first = f"worker closed its {closed}"
        if status == "stopped":
            return f"{first} {during} and was stopped (the model closed a file it does not own?)"
        return f"{first} {during}, then {how}{hint}"
    return f"worker {how} {during}{hint}"


def last_words(tail: list[str]) -> str:
    """The line that matters most of a worker's last output: faulthandler's, else the last
    few non-empty lines, joined and cut short for a one-line message."""
    lines = [line.strip() for line in tail if line.strip()]
    fatal = [line for line in lines if line.startswith(FATAL_MARK)]
    words = fatal[-1] if fatal else " | ".join(lines[-MESSAGE_TAIL_LINES:])
    if len(words) > MESSAGE_TAIL_CHARS:
        words = words[: MESSAGE_TAIL_CHARS - 1] + "…"
    return words


def with_last_words(message: str, tail: list[str]) -> str:
    words = last_words(tail)
    return f"{message}; its last output: {words}" if words else message


def output_details(tail: list[str]) -> str | None:
    """The error's details (its `traceback` field): the worker's last output, whole."""
    if not any(line.strip() for line in tail):
        return None
    return "The worker's last output:\n" + "\n".join(tail)
