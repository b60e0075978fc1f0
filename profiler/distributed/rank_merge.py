"""The events of a distributed arm's ranks folded into the one stream of a worker.

Every rank runs every command in lockstep, so the k-th `phase`, `first_step`, `block_done`,
`bs_done` or `done` of each rank belong together: one merged event goes on once every rank has
sent its own (a command is done when all ranks are done, failed if any failed). Step times are
merged per step index: the merged `steps` sample is the slowest rank's, which is what the user
waits for (`ms_fastest` beside it is the fastest rank's, the band of the live plots); each
rank's own samples, its first step, its peaks and its identity go on as `rank_event`s for the
session's per-rank results. What TorchDynamo did (compiles, graph breaks, fallbacks) goes on
as every rank's `rank_event`, for the per-rank compile figures and their divergence; rank 0's
is also passed on as the arm's own, as for a single worker. The other untimed results
(memory samples, artefacts, accuracy, the profile) are rank 0's, and so are a script's notes on
what was compiled; the files a script wrote are every rank's.
An `error` from any rank ends the arm: the ranks of a data parallel job cannot go on without
one of them (the others would wait in their next collective), so the error names the rank and
a failed `done` follows at once.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

from tcprof.profiler.protocol.types import Event

SYNCED = ("ready", "hello", "loaded", "phase", "first_step", "block_done", "bs_done", "done", "bye")
PER_RANK = ("hello", "first_step", "bs_done")  # also kept per rank (rank_event)
COMPILE_INSIGHT = ("compile", "graph_break", "fallback")  # every rank's, as rank_event
FIRST_RANK_ONLY = (
    "memory",
    *COMPILE_INSIGHT,
    "cudagraph_skip",
    "explain",
    "artifact",
    "cache_saved",
    "cache_loaded",
    "accuracy",
    "profile",
    "model_info",
)
MAX_KEYS = ("ms", "compile_s", "compile_peak_mb", "waited_s")
PEAK_KEYS = ("peak_rss_mb", "os_peak_rss_mb", "peak_cuda_mb", "peak_cuda_reserved_mb")
SCRIPT_STEP_KEYS = ("own_ms", "loss", "samples", "tokens")  # a script's per-step values beside `ms`


class RankMerger:
    def __init__(self, world_size: int, put: Callable[[Event], None]) -> None:
        self.world_size = world_size
        self._put = put
        self.identity: dict[int, dict[str, Any]] = {}  # rank -> node, host, pid
        self.where: dict[int, Event] = {}  # rank -> its latest `rank_where` answer
        self._queues: dict[int, collections.deque[Event]] = {
            r: collections.deque() for r in range(world_size)
        }
        # key -> rank -> step -> ms
        self._samples: dict[
            tuple[Any, ...], dict[int, dict[int, tuple[float, dict[str, Any]]]]
        ] = {}
        self._next_step: dict[tuple[Any, ...], int] = {}

    def name(self, rank: int) -> str:
        who = self.identity.get(rank) or {}
        return f"rank {rank} (node {who.get('node', 0)}, {who.get('host', '?')})"

    def offer(self, rank: int, event: Event) -> bool:
        """Fold one event of `rank`; True when it ends the arm (a rank's error)."""
        kind = event.get("type")
        if kind == "rank_where":
            self.where[rank] = event
        elif kind == "error":
            message = f"{self.name(rank)}: {event.get('message')}"
            self._put({**event, "rank": rank, "fatal": True, "message": message})
            self._put({"type": "done", "cmd": None, "failed": True})
            return True
        elif kind == "steps":
            self._steps(rank, event)
        elif kind in COMPILE_INSIGHT:
            self._rank_event(rank, event)
            if rank == 0:
                self._put(event)
        elif kind == "script" and event.get("kind") != "files":
            if rank == 0:  # what was compiled and where: every rank ran the same script
                self._put(event)
        elif kind == "log":
            self._put({**event, "text": f"[rank {rank}] {event.get('text', '')}"})
        elif kind in SYNCED:
            self._queues[rank].append(event)
            while all(self._queues.values()):
                self._merge([self._queues[r].popleft() for r in range(self.world_size)])
        elif rank == 0 or kind not in FIRST_RANK_ONLY:
            self._put(event)
        return False

    def _rank_event(self, rank: int, event: Event) -> None:
        who = self.identity.get(rank) or {}
        self._put(
            {
                "type": "rank_event",
                "rank": rank,
                "node": who.get("node", 0),
                "host": who.get("host"),
                "event": event,
            }
        )

    def _merge(self, events: list[Event]) -> None:
        kind = events[0].get("type")
        if kind in PER_RANK:
            for rank, event in enumerate(events):
                self._rank_event(rank, event)
        merged = dict(events[0])
        if kind == "hello":
            merged["world_size"] = self.world_size
        elif kind == "done":
            merged["failed"] = any(e.get("failed") for e in events)
        elif kind == "block_done":
            merged["steps"] = min(int(e.get("steps") or 0) for e in events)
            merged["quiet"] = all(e.get("quiet") is not False for e in events)
        for key in (*MAX_KEYS, *PEAK_KEYS):
            values = [v for e in events if isinstance(v := e.get(key), (int, float))]
            if values and key in merged:
                merged[key] = max(values)
        self._put(merged)

    def _steps(self, rank: int, event: Event) -> None:
        """Keep the rank's samples; pass on every step index all ranks have timed, slowest.
        A script's steps also carry the script's own time (the slowest rank's, as its step
        waits for it) and the loss (rank 0's, the one a script logs), merged by step too: the
        ranks send their steps in batches of their own sizes."""
        self._rank_event(rank, event)
        key = (event.get("batch_size"), event.get("phase"), event.get("block"))
        start = int(event.get("start") or 0)
        per_rank = self._samples.setdefault(key, {r: {} for r in range(self.world_size)})
        self._next_step.setdefault(key, start)
        extras = [k for k in SCRIPT_STEP_KEYS if isinstance(event.get(k), list)]
        for i, ms in enumerate(event.get("ms") or []):
            per_rank[rank][start + i] = (ms, {k: _at(event[k], i) for k in extras})
        first = step = self._next_step[key]
        slowest: list[float] = []
        fastest: list[float] = []
        merged: dict[str, list[Any]] = {k: [] for k in extras}
        while all(step in samples for samples in per_rank.values()):
            taken = [samples.pop(step) for samples in per_rank.values()]
            times = [ms for ms, _ in taken]
            slowest.append(max(times))
            fastest.append(min(times))
            for k in extras:
                values = [more.get(k) for _, more in taken]
                merged[k].append(_combine(k, values))
            step += 1
        if not slowest:
            return
        self._next_step[key] = step
        out = {k: v for k, v in event.items() if k not in ("start", "ms", *extras)}
        self._put({**out, "start": first, "ms": slowest, "ms_fastest": fastest, **merged})

    def straggler(self) -> str | None:
        """The rank that is behind, from the ranks' answers to `where`: one computing in its own
        code while the others wait inside torch (a collective) or for the next command."""
        if not self.where:
            return None
        busy = [
            r
            for r, w in sorted(self.where.items())
            if w.get("in_torch") is False and not w.get("idle")
        ]
        places = "; ".join(
            f"rank {r}: {w.get('where') or 'unknown'}" for r, w in sorted(self.where.items())
        )
        if busy and len(busy) < len(self.where):
            names = ", ".join(self.name(r) for r in busy)
            return f"{names} is behind, the other ranks wait for it ({places})"
        return f"where the ranks are: {places}"


def _at(values: list[Any], i: int) -> Any:
    return values[i] if i < len(values) else None


def _combine(key: str, values: list[Any]) -> Any:
    """One step's value across the ranks (in rank order): the script's own time is the
    slowest rank's; the loss is rank 0's; the work (samples, tokens) is every rank's."""
    if key == "loss":
        return values[0]
    numbers = [v for v in values if isinstance(v, (int, float))]
    if key in ("samples", "tokens"):
        return sum(numbers) if numbers else None
    return max(numbers) if numbers else None
