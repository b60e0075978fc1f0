"""The accuracy check of a distributed arm, on every rank of its own torchrun job.

Each rank checks two steps on its own slice of data: the compiled run is a fresh copy of the
model wrapped as the arm wraps it (DDP, or FSDP2 with its gradients gathered whole), the
references are plain copies whose gradients are averaged across ranks here, as DDP and FSDP
average them (and, for DDP, which broadcasts rank 0's buffers before each forward, whose
buffers are broadcast so too). The ranks' verdicts are gathered so that rank 0, whose
`accuracy` event the engine keeps, reports a failure (else a nondeterministic model) found on
any rank, naming that rank.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist


def average_grads(module: torch.nn.Module) -> None:
    """Every parameter's gradient averaged across ranks, in place (gloo has no AVG)."""
    world = dist.get_world_size()
    for p in module.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
            p.grad.div_(world)


def broadcast_buffers(module: torch.nn.Module) -> None:
    """Rank 0's buffers on every rank, in place, as DDP (broadcast_buffers=True) does before
    each forward. Every rank calls it, in the same order."""
    for b in module.buffers():
        if b.dtype == torch.bool:  # not every backend broadcasts bool
            as_bytes = b.to(torch.uint8)
            dist.broadcast(as_bytes, src=0)
            b.copy_(as_bytes.bool())
        else:
            dist.broadcast(b, src=0)


# A rank's status, most telling first: a failure anywhere is the arm's, then a model found
# nondeterministic.
_PRECEDENCE = ("fail", "nondeterministic")


def combine(result: dict[str, Any]) -> dict[str, Any]:
    """Every rank's verdict, gathered: the first failing rank's, else the first that found the
    model nondeterministic, else rank 0's, with how many ranks were checked. Every rank calls
    it."""
    gathered: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, result)
    failing = [
        (r, res)
        for status in _PRECEDENCE
        for r, res in enumerate(gathered)
        if res and res.get("status") == status
    ]
    rank, chosen = failing[0] if failing else (0, gathered[0] or result)
    chosen = dict(chosen)
    if failing:
        chosen["reason"] = f"rank {rank}: {chosen.get('reason')}"
    chosen["ranks_checked"] = len(gathered)
    return chosen
