"""The method note on what varies between a run's rounds: each round's seed and the random wait
before each block (run/draws.py), and a script that seeds itself, which rounds cannot vary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tcprof.profiler.protocol import units


def seeding_notes(session_dict: Mapping[str, Any]) -> list[str]:
    """Plain sentences for the method notes; none for a session before rounds had seeds."""
    seeding = session_dict.get("seeding")
    if not isinstance(seeding, Mapping) or not seeding.get("per_round"):
        return []
    rounds = session_dict.get("rounds") or []
    waited = sum(r.get("block_wait_s") or 0.0 for r in rounds if isinstance(r, Mapping))
    notes = [
        "rounds: each round its own seed (weights and batches differ between rounds, the same "
        "for every arm within one), and an untimed random wait of up to "
        f"{units.ms(1000 * (seeding.get('wait_max_s') or 0.0))} before each block "
        f"({units.seconds(waited)} in all) so a periodic load is noise, not a push on one arm; "
        f"the accuracy check uses the run's seed ({seeding.get('accuracy_seed')}) for every arm"
    ]
    own = seeding.get("script_own_seed")
    if own:
        notes.append(
            f"the script sets its own seed ({own}): rounds differ only in their processes, the "
            "machine's state and the blocks' phase, not in its weights or data"
        )
    return notes
