"""What each round draws at random, reproducibly from the run's seed: its seed and the waits
before its blocks.

A round's seed gives every arm of that round the same weights and batches (paired) while the
rounds differ, so whatever depends on the seed varies between rounds and enters the interval.
Round 0 keeps the run's own seed (`--seed S`), which the untimed accuracy pass and the
reproduction script use too; later rounds derive theirs from (S, round), so `--seed S` still
reproduces a run, however many rounds it has.

The wait before a block is uniform in [0, WAIT_MAX_S): a load with a period up to that long no
longer meets one arm's blocks at the same phase in every round, so it adds noise to each round
instead of the same push to one arm. The arms' order is drawn from the same seed
(analysis/schedule.round_order). Each round has its own generator, so adding rounds (or
stopping early) never changes the earlier rounds' draws.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
from typing import Any

from tcprof.profiler.config import RunConfig

WAIT_MAX_S = 0.05  # mean 25 ms a block: a few percent of a default block's time
SEED_BITS = 31  # non-negative and small enough for every generator the workers seed
# A script that seeds itself after ours (torch.manual_seed, Lightning's seed_everything, Hugging
# Face's set_seed): its weights and data are the same in every round whatever we seed.
OWN_SEED_CALL = re.compile(r"\b(?:[A-Za-z_][\w.]*\.)?(manual_seed|seed_everything|set_seed)\s*\(")


def round_seed(seed: int, round_no: int) -> int:
    """Round `round_no`'s seed: the run's own in round 0, then one derived from both."""
    if round_no == 0:
        return seed
    digest = hashlib.sha256(f"tcprof round seed {seed} {round_no}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % (1 << SEED_BITS)


class BlockWaits:
    """The untimed waits before one round's blocks, drawn in the order the blocks run."""

    def __init__(self, seed: int, round_no: int, max_s: float = WAIT_MAX_S) -> None:
        self._rng = random.Random(f"tcprof block waits {seed} {round_no}")
        self._max_s = max_s
        self.total_s = 0.0  # what was drawn so far (the round's untimed waiting)

    def next(self) -> float:
        wait = round(self._rng.uniform(0.0, self._max_s), 4)
        self.total_s += wait
        return wait


def own_seed_call(path: str) -> str | None:
    """Where the script's own file seeds itself ("torch.manual_seed at train.py:12"), or None;
    only that file is read (a seed set in a module it imports is not seen)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for number, line in enumerate(lines, 1):
        code = line.split("#", 1)[0]
        found = OWN_SEED_CALL.search(code)
        if found:
            call = found.group(0).rstrip("( \t")
            return f"{call} at {os.path.basename(path)}:{number}"
    return None


def seeding(config: RunConfig) -> dict[str, Any]:
    """How the run seeds its rounds (session.json's `seeding`)."""
    own = own_seed_call(config.script.path) if config.script is not None else None
    return {
        "per_round": True,
        "accuracy_seed": config.seed,
        "wait_max_s": WAIT_MAX_S,
        "script_own_seed": own,
        "order_randomised": True,  # analysis/schedule.round_order with the run's seed
    }
