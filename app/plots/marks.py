"""What the plots mark on a run's steps: its compiles and its contended blocks.

Compiles become markers (`Marker`: where, how long, and the text shown on hover). A timed block
that other processes slowed (`block_done` with `contended`) is kept as a `Contended` span, so
the plots can shade the steps whose times a neighbour inflated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tcprof.app.plots.live_events import Compile
from tcprof.app.plots.series import Section
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.compile_terms import (
    COMPILE_COST,
    COMPILE_TIMER,
    frame_label,
)
from tcprof.profiler.protocol.event_text import phase_words

SAME_EMISSION_S = 0.05  # compile events this close together were sent after the same step


@dataclass
class Marker:
    """A compile or recompile moment: where it is, how long it took, and the text on hover."""

    x: float  # in "all batch sizes in a row"
    kind: str  # first | recompile
    text: str
    section: Section | None = None
    step: float = 0.0  # within its section
    t0: float | None = None  # wall-clock span of torch's compile timer (s)
    t1: float | None = None
    seconds: float | None = None
    timer: bool = False  # `seconds` is torch's compile timer (a worker's compile event)
    sent: float | None = None  # the run's time its event was sent (s)
    # What its event said: the frame, why it compiled, its backward's compile, a failure, and
    # whether `seconds` is the compile cost (a replayed session without the timer's figure).
    frame: str | None = None
    reason: str | None = None
    backward_s: float | None = None
    fail_type: str | None = None
    fail_reason: str | None = None
    cost: bool = False


@dataclass
class Contended:
    """A timed block during which the rest of the machine was busy (its steps read slow)."""

    section: Section
    step0: int  # its first and last step, within its section
    step1: int
    x0: float  # the same, in "all batch sizes in a row"
    x1: float
    t0: float | None  # the run's time its first step began and its last ended (s)
    t1: float | None
    busy_elsewhere: float  # cores the rest of the machine kept busy, on average

    @property
    def text(self) -> str:
        return (
            f"contended block (steps {self.step0:,}–{self.step1:,}): other processes kept "
            f"{self.busy_elsewhere:.1f} cores busy meanwhile, so these steps may read slow"
        )


def compile_marker(
    event: Compile, offset: int, section: Section, t: float | None, earlier: list[Marker]
) -> Marker:
    """A `compile` event's marker (its text still empty), timed on the run's clock; `earlier`
    (the arm's markers so far) are moved back when it was sent after the same step as they."""
    seconds = event.seconds
    step = event.step
    marker = Marker(
        x=float(offset + step),
        kind=event.kind,
        text="",
        section=section,
        step=float(step),
        seconds=seconds,
        timer=event.timer,
        frame=event.frame,
        reason=event.reason,
        backward_s=event.backward_s,
        fail_type=event.fail_type,
        fail_reason=event.fail_reason,
        cost=event.cost,
    )
    if t is not None and seconds is not None:
        # torch's timer ended before the event was sent; compiles sent after the same step
        # ran one after another: each earlier one ends where the next began.
        group = []
        for other in reversed(earlier):
            if other.t1 is None or other.section != section or other.step != step:
                break
            if other.sent is None or abs(other.sent - t) > SAME_EMISSION_S:
                break
            group.append(other)
        end = group[0].sent if group else t
        assert end is not None
        for other in group:
            other.t0 = (other.t0 or 0.0) - seconds
            other.t1 = (other.t1 or 0.0) - seconds
        marker.t0, marker.t1, marker.sent = end - seconds, end, end
    return marker


def marker_text(
    marker: Marker, name: str, replicates: int, cost: float | None, script: Any = None
) -> str:
    """What hovering a compile marker says: the arm, batch size (a script's sweep value, or
    nothing: `script`, as phase_words reads it) and frame, the compile's own duration (torch's
    compile timer) and its share of the phase's compile cost (`cost`, once a summary has given
    it), and why it compiled."""
    rep, bs = marker.section or (0, 0)
    label = "compile" if marker.kind == "first" else "recompile"
    frame = marker.frame
    where = f" in {frame_label(frame)}" if frame else ""
    words = phase_words(bs, script)
    head = " · ".join([name, *([words] if words else []), f"{label}{where}"])
    whose = f"{words}'s" if words else "the"
    if replicates > 1:
        head += f" · round {rep + 1}"
    lines = [head]
    if marker.seconds is not None:
        if marker.timer:
            took = f"{COMPILE_TIMER}: {units.seconds(marker.seconds)}"
        elif marker.cost:
            took = f"{COMPILE_COST}: {units.seconds(marker.seconds)}"
        else:
            took = f"took {units.seconds(marker.seconds)}"
        if cost is not None and marker.timer:
            share = marker.seconds / cost
            if share <= 1.0:
                took += (
                    f", {units.percent(share)} of {whose} {COMPILE_COST} ({units.seconds(cost)})"
                )
            else:
                took += f", longer than {whose} {COMPILE_COST} ({units.seconds(cost)})"
        if marker.backward_s:
            took += f"; backward compile {units.seconds(marker.backward_s)}"
        lines.append(took)
    if marker.fail_type:
        lines.append(f"failed: {marker.fail_type} {marker.fail_reason or ''}")
    reason = marker.reason or ("first compile" if label == "compile" else "?")
    lines.append(str(reason))
    return "\n".join(lines)
