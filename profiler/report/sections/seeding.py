"""The method note on what varies between a run's rounds: each round's seed and the random wait
before each block (run/draws.py), and a script that seeds itself, which rounds cannot vary."""

from __future__ import annotations

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units


def seeding_notes(session: SessionModel) -> list[str]:
    """Plain sentences for the method notes; none for a session before rounds had seeds."""
    seeding = session.seeding
    if seeding is None or not seeding.per_round:
        return []
    notes = [
        "rounds: each round its own seed (weights and batches differ between rounds, the same "
        "for every arm within one), and an untimed random wait of up to "
        f"{units.ms(1000 * (seeding.wait_max_s or 0.0))} before each block "
        f"({units.seconds(seeding.waited_s)} in all) so a periodic load is noise, not a push on "
        f"one arm; the accuracy check uses the run's seed ({seeding.accuracy_seed}) for every arm"
    ]
    if seeding.order_randomised:
        notes.append(
            "the arms' order: the Williams square randomised from the run's seed (which arm "
            "takes which of its letters, and each cycle's rows in a random order), so no arm "
            "leads the first round in every run"
        )
    if seeding.script_own_seed:
        notes.append(
            f"the script sets its own seed ({seeding.script_own_seed}): rounds differ only in "
            "their processes, the machine's state and the blocks' phase, not in its weights or data"
        )
    return notes
