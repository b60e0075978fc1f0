"""How a run's rounds were seeded (session.json's `seeding`, run/draws.py), typed and read-only,
with the random waits its rounds drew before their blocks (`rounds[].block_wait_s`). A session
saved before rounds had seeds has none."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.model.json_values import as_float, as_int, items


@dataclass(frozen=True)
class Seeding:
    """Each round its own seed (`per_round`), the accuracy check's seed, the longest random wait
    before a block and the waits' sum over the rounds (s), and the seed a script sets itself
    (where it was set; None: it sets none); `order_randomised`: the arms' order came from the
    Williams square randomised from the run's seed (analysis/schedule.py; False before it was)."""

    per_round: bool
    accuracy_seed: int | None
    wait_max_s: float | None
    waited_s: float
    script_own_seed: str | None
    order_randomised: bool = False

    @classmethod
    def of(cls, session: Mapping[str, Any]) -> Seeding | None:
        seeding = session.get("seeding")
        if not isinstance(seeding, Mapping):
            return None
        own = seeding.get("script_own_seed")
        return cls(
            bool(seeding.get("per_round")),
            as_int(seeding.get("accuracy_seed")),
            as_float(seeding.get("wait_max_s")),
            sum(as_float(r.get("block_wait_s")) or 0.0 for r in items(session.get("rounds"))),
            str(own) if own else None,
            bool(seeding.get("order_randomised")),
        )
