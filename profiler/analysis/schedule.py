"""The order arms take in each round: a Williams design, so that over a run's rounds every arm
is in every position equally often and right after every other arm equally often.

An arm that is always first, always last, or always right after another arm's compile carries
whatever that position does to it (a warmer cache, a neighbour's compile workers still busy)
into every round, and pairing cannot remove a bias every round shares. A Williams square of
n rows balances position and first-order carry-over for even n; odd n needs the square and
its mirror (2n rows). Rounds cycle through the rows, so a run is balanced when its number of
rounds is a multiple of the design's period (`period`); `balance` says how far from it a run
is. Within a round, blocks alternate direction (A B, B A, ...), as before.

A run's design is randomised from its seed, as a crossover's should be: the arms take the
square's letters in a random order, and each cycle of rows runs in a random order. Relabelling
a Williams square and reordering its rows keep both balances, so a run is balanced after the
same rounds; but no arm is first in the cold round, or in any given round, in every run. With a
fixed square the same arm led round 0 in all 30 runs of a known-truth series, so whatever the
first blocks of a run meet (docs/benchmarks.md: round 0 read repeat2 against eager 8-10% low)
fell on the same arms in every run, a bias no number of runs averages out.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.config import williams_period
from tcprof.profiler.model.json_values import as_int, as_map, as_str


def williams(n: int) -> list[list[int]]:
    """The rows of a Williams design for n arms (n rows for even n, 2n for odd n)."""
    if n < 1:
        return []
    first = [0]
    low, high = 1, n - 1
    while len(first) < n:  # 0, 1, n-1, 2, n-2, ...
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(x + i) % n for x in first] for i in range(n)]
    if n % 2:
        rows += [row[::-1] for row in rows]
    return rows


def period(n_arms: int) -> int:
    """Rounds that make one balanced cycle for n arms: the rows of `williams` (declared once
    in config, whose default number of rounds balances it: config.balanced_rounds)."""
    return williams_period(n_arms)


def round_order(n_arms: int, round_no: int, seed: int | None = None) -> list[int]:
    """The arms' order in round `round_no` (0-based): the design's rows in turn; with the
    run's `seed`, the design randomised (the module's docstring), the same for the same seed."""
    rows = williams(n_arms)
    if not rows:
        return []
    if seed is None:
        return rows[round_no % len(rows)]
    labels = random.Random(f"tcprof arm labels {seed}").sample(range(n_arms), n_arms)
    cycle = random.Random(f"tcprof rows {seed} {round_no // len(rows)}")
    row = cycle.sample(range(len(rows)), len(rows))[round_no % len(rows)]
    return [labels[x] for x in rows[row]]


def block_order(round_arms: Sequence[int], block_no: int) -> list[int]:
    """Blocks alternate direction within a round (A B, B A, A B, ...)."""
    return list(round_arms) if block_no % 2 == 0 else list(round_arms)[::-1]


@dataclass(frozen=True)
class Balance:
    """How evenly `rounds` rounds place n arms: positions[arm][k] counts the rounds in which
    the arm was k-th; after[a][b] the rounds in which arm b came right after arm a."""

    arms: int
    rounds: int
    positions: list[list[int]]
    after: list[list[int]]

    @property
    def balanced(self) -> bool:
        if self.arms < 2:
            return True
        cells = {c for row in self.positions for c in row}
        pairs = {self.after[a][b] for a in range(self.arms) for b in range(self.arms) if a != b}
        return len(cells) == 1 and len(pairs) == 1

    def note(self, names: Sequence[str] | None = None) -> str | None:
        """None when balanced; else one sentence saying how far from balance the run is."""
        if self.balanced:
            return None
        names = list(names) if names is not None else [f"arm {i + 1}" for i in range(self.arms)]
        need = period(self.arms)
        firsts = [row[0] for row in self.positions]
        most = max(range(self.arms), key=lambda i: firsts[i])
        fewest = min(firsts)
        would = -(-max(self.rounds, 1) // need) * need
        return (
            f"the arms' order is not balanced: {self.rounds} round(s) for {self.arms} arms "
            f"(balance needs a multiple of {need}: --replicates {would} would balance; the "
            f"default does); {names[most]} runs first in {firsts[most]} round(s), another in "
            f"{fewest}"
        )


def balance(n_arms: int, rounds: int) -> Balance:
    """The balance of the schedule `round_order` gives over `rounds` rounds."""
    return balance_of([round_order(n_arms, r) for r in range(rounds)], n_arms)


def balance_of(orders: Sequence[Sequence[int]], n_arms: int) -> Balance:
    """The balance of the orders rounds actually ran in (arm indexes, first to last)."""
    positions = [[0] * n_arms for _ in range(n_arms)]
    after = [[0] * n_arms for _ in range(n_arms)]
    for order in orders:
        for k, arm in enumerate(order):
            positions[arm][k] += 1
        for a, b in zip(order, order[1:], strict=False):
            after[a][b] += 1
    return Balance(n_arms, len(orders), positions, after)


def schedule_summary(rounds: Sequence[dict[str, Any]], names: Sequence[str]) -> dict[str, Any]:
    """session.json's `schedule`: the design, and how evenly the recorded rounds (each with
    its `order` of arm names) placed the arms; positions[name][k]: rounds it ran k-th."""
    index = {name: i for i, name in enumerate(names)}
    orders = [
        [index[n] for n in r.get("order") or [] if n in index]
        for r in rounds
        if isinstance(r.get("replicate"), int)
    ]
    b = balance_of(orders, len(names))
    return {
        "design": "williams",
        "period": period(len(names)),
        "rounds": b.rounds,
        "balanced": b.balanced,
        "note": b.note(names),
        "positions": {name: b.positions[i] for i, name in enumerate(names)},
    }


@dataclass(frozen=True)
class SavedSchedule:
    """session.json's `schedule` read back (what `schedule_summary` wrote), for the method
    notes: its design, whether its rounds were balanced, how many, over how many arms (those
    it placed), and its note (None where a session has none)."""

    design: str | None
    balanced: bool
    rounds: int | None
    arms: int
    note: str | None

    @classmethod
    def of(cls, value: Any) -> SavedSchedule:
        saved = as_map(value)
        return cls(
            design=as_str(saved.get("design")),
            balanced=bool(saved.get("balanced")),
            rounds=as_int(saved.get("rounds")),
            arms=len(saved.get("positions") or ()),  # as saved: its arms by name
            note=as_str(saved.get("note")),
        )
