"""The optional torch._dynamo.explain pre-pass: graphs, graph breaks and ops of the first batch,
before the arm's own (timed) first step."""

from __future__ import annotations

from typing import Any

import torch

from tcprof.profiler.worker.channel import EventChannel


def explain_pass(
    channel: EventChannel,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    batch: Any,
    batch_size: int,
    watcher: Any,
) -> None:
    """Untimed. Buffers (BatchNorm statistics) are restored and dynamo's caches reset, so the
    arm still starts from the same state as every other arm and compiles from scratch."""
    from torch import _dynamo

    saved = {k: v.detach().clone() for k, v in model.state_dict().items()}
    try:
        out = _dynamo.explain(model)(*batch.args, **batch.kwargs)
        reasons = []
        for r in out.break_reasons:
            frame = r.user_stack[-1] if getattr(r, "user_stack", None) else None
            reasons.append(
                {
                    "reason": r.reason,
                    "file": getattr(frame, "filename", None),
                    "line": getattr(frame, "lineno", None),
                }
            )
        channel.emit(
            "explain",
            batch_size=batch_size,
            graph_count=out.graph_count,
            graph_break_count=out.graph_break_count,
            op_count=out.op_count,
            break_reasons=reasons,
        )
    except Exception as exc:
        channel.emit(
            "log", stream="tcprof", text=f"explain pre-pass failed: {type(exc).__name__}: {exc}"
        )
    finally:
        with torch.no_grad():
            model.load_state_dict(saved)
        optimizer.zero_grad()
        _dynamo.reset()
        if watcher is not None:  # what explain compiled is not the arm's compile
            watcher.take_compiles()
            watcher.take_graph_breaks()
            watcher.take_fallbacks()
