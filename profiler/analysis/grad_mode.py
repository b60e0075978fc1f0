"""Advice on recompiles because grad mode changed: the model was called under torch.no_grad()
(an evaluation) and with gradients (training), and each mode is a graph of its own. Said with
the calls that did it: the recompile's own, and the other mode's compile it followed, found in
the rows' compiles lists (`Compile` records, in order).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from tcprof.profiler.analysis.advice_item import SavedAdvice
from tcprof.profiler.analysis.user_words import Place
from tcprof.profiler.model.arm import Recompile
from tcprof.profiler.model.compiles import Compile

GRAD_MODE = "GLOBAL_STATE changed: grad_mode"


class Call(Place, Protocol):
    """A compile and the user's call that reached it: when (before training, an evaluation
    after some steps), in which grad mode, from which line of the user's code."""

    @property
    def when(self) -> str | None: ...
    @property
    def at_step(self) -> int | None: ...
    @property
    def grad_mode(self) -> bool | None: ...
    @property
    def site_file(self) -> str | None: ...
    @property
    def site_line(self) -> int | None: ...


def where(item: Place) -> str:
    """'m.py:10', else the frame's name, else '?'."""
    return f"{item.file}:{item.line}" if item.file else str(item.frame or "?")


def _site(call: Call) -> str:
    """The call in the user's code that compiled ('train.py:30'), else the compiled frame."""
    return f"{call.site_file}:{call.site_line}" if call.site_file else where(call)


def _when(call: Call) -> str:
    """'before training', 'after 4 steps', '' for a compile inside a training step."""
    if call.when == "before_training":
        return "before training"
    if call.when == "evaluation":
        return f"after {call.at_step} steps" if call.at_step else "between steps"
    return ""


def _frame(call: Call) -> tuple[Any, ...]:
    return (call.frame, call.file, call.line)


def _match(call: Call, reason: str | None) -> tuple[Any, ...]:
    """What a recompile and its entry in the compiles list share."""
    return (call.at_step, call.grad_mode, reason, call.site_file, call.site_line, *_frame(call))


def _other_mode(rc: Recompile, compiles: Sequence[Sequence[Compile]]) -> list[Compile]:
    """The compiles a grad-mode recompile was told apart from: in the same process (one row's
    list), the last earlier compile of the same frame in the other grad mode. A training
    recompile that follows an evaluation's graph names that evaluation this way."""
    key = _match(rc, rc.reason)
    out: list[Compile] = []
    for listed in compiles:
        for i, c in enumerate(listed):
            if c.kind != "recompile" or _match(c, c.reason) != key:
                continue
            before = [
                p
                for p in listed[:i]
                if _frame(p) == _frame(rc) and p.grad_mode is (not rc.grad_mode)
            ]
            out += before[-1:]
            break
    return out


def _at(calls: Sequence[Call]) -> str:
    """' at train.py:30': each call in the user's code once; '' without one."""
    sites = list(dict.fromkeys(_site(c) for c in calls if c.site_file))
    return f" at {', '.join(sites)}" if sites else ""


def _during(calls: Sequence[Call]) -> str:
    """' (before training, after 4 steps)': when the calls compiled; '' inside steps."""
    when = list(dict.fromkeys(w for c in calls if (w := _when(c))))
    return f" ({', '.join(when)})" if when else ""


def grad_mode_advice(
    items: Sequence[Recompile], compiles: Sequence[Sequence[Compile]]
) -> SavedAdvice:
    """Recompiles because grad mode changed: expected, compiled once per mode, and counted in
    the compile cost (`compiles`: each row's compiles list, in order). A piece of advice as
    session.json saves it (its writer's JSON)."""
    both: list[Call] = [*items, *(c for rc in items for c in _other_mode(rc, compiles))]
    both.sort(key=lambda c: (c.when != "before_training", c.at_step or 0))
    no_grad = [c for c in both if c.grad_mode is False]
    training = [c for c in both if c.grad_mode is True]
    at = _at(no_grad)
    return {
        "kind": "grad_mode",
        "message": f"{len(items)} recompile(s) because grad mode changed: the compiled code "
        f"was called for evaluation under torch.no_grad(){at}{_during(no_grad)} and for "
        f"training with gradients{_at(training)}, and each mode is a graph of its own",
        "fix": "expected: a second graph, compiled once per mode and counted in the compile "
        "cost. If that evaluation is not worth a compile, run it eagerly: "
        f"wrap {'the call' + at if at else 'it'} in "
        '`with torch.compiler.set_stance("force_eager"):` or call the uncompiled model '
        "(`model._orig_mod`) there; a compile of the evaluation of its own pays back "
        "only if it runs often",
        "evidence": {
            "count": len(items),
            "calls": sorted({_site(c) for c in no_grad}),
            "training_calls": sorted({_site(c) for c in training}),
            "where": sorted({_site(rc) for rc in items}),
        },
        "apply": None,
    }
