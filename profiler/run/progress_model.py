"""How far a run has got, folded from its events: one model for the terminal and the status bar.

Progress counts each arm's first step and measured blocks, per batch size and round (a block may
run more steps than asked for, to last its minimum time, so steps would not add up). Each arm's
current phase is kept with the moment it began, so a long compile shows its time running.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.analysis import stopping
from tcprof.profiler.protocol.event_text import phase_text, phase_words
from tcprof.profiler.protocol.events import EventType


@dataclass
class ArmPhase:
    """What one arm's worker is doing now."""

    phase: str | None = None
    batch_size: int | None = None
    since: float = 0.0


class ProgressModel:
    def __init__(
        self, arm_names: list[str], config: Any, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """config: a RunConfig (or anything with blocks, steps, batch_sizes and replicates)."""
        self.names = list(arm_names)
        self._clock = clock
        blocks = max(1, min(config.blocks, config.steps))
        self.rounds = max(1, int(getattr(config, "replicates", 1) or 1))
        # a run that stops when settled counts to its first look, then on to its last
        self._most = self.rounds
        if getattr(config, "stop_early", False):
            self.rounds = min(self.rounds, stopping.first_look(len(config.run_arms)))
        self.script = getattr(config, "script", None)  # a script's phases read its own way
        self._units_per_arm = len(config.batch_sizes) * (blocks + 1) * self.rounds
        self.total = len(self.names) * self._units_per_arm
        self.done = 0
        self.round: int | None = None  # the round running now (0-based)
        self.arms = [ArmPhase(since=clock()) for _ in self.names]
        self.current: int | None = None  # the arm whose phase changed last
        self.started = clock()

    def apply(self, event: dict[str, Any]) -> bool:
        """Fold one event; True if it changed what a progress line shows."""
        kind = event.get("type")
        if kind == EventType.PHASE:
            arm = event.get("arm")
            if not (isinstance(arm, int) and 0 <= arm < len(self.arms)):
                return False
            self.arms[arm] = ArmPhase(event.get("phase"), event.get("batch_size"), self._clock())
            self.current = arm
            return True
        if kind in (EventType.FIRST_STEP, EventType.BLOCK_DONE):
            self.done += 1
            return True
        if kind == EventType.ROUND_START:
            self.round = event.get("replicate")
            if isinstance(self.round, int) and self.round >= self.rounds:  # past the first look
                per_round = self._units_per_arm // self.rounds
                self.total += len(self.names) * per_round * (self._most - self.rounds)
                self._units_per_arm = per_round * self._most
                self.rounds = self._most
            return True
        if kind == EventType.ARMS_ADDED:  # --apply-advice: more arms, more to do
            added = [str(a.get("label") or a.get("backend")) for a in event.get("arms") or []]
            self.names += added
            self.arms += [ArmPhase(since=self._clock()) for _ in added]
            self.total += len(added) * self._units_per_arm
            return True
        return False

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0

    def arm_name(self, arm: int | None) -> str:
        return self.names[arm] if isinstance(arm, int) and 0 <= arm < len(self.names) else "?"

    def phase_elapsed_s(self, arm: int | None = None) -> float:
        arm = self.current if arm is None else arm
        since = self.arms[arm].since if isinstance(arm, int) else self.started
        return self._clock() - since

    def run_elapsed_s(self) -> float:
        return self._clock() - self.started

    def where(self) -> str:
        """The current arm, batch size and phase: 'round 2/3 · inductor · bs 8 · warm-up'."""
        parts = []
        if isinstance(self.round, int) and self.rounds > 1:
            parts.append(f"round {self.round + 1}/{self.rounds}")
        if self.current is None:
            return " · ".join([*parts, "starting workers"])
        now = self.arms[self.current]
        parts.append(self.names[self.current])
        words = phase_words(now.batch_size, self.script)
        if words:
            parts.append(words)
        parts.append(phase_text(now.phase))
        return " · ".join(parts)
