"""The method note on what varies between rounds (report/sections/seeding.py), in the notes
every reader shows, and none for a session from before rounds had their own seeds."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.method import method_notes
from tcprof.profiler.report.sections.seeding import seeding_notes


def _session(seeding: dict[str, Any] | None) -> dict[str, Any]:
    row = {"batch_size": 8, "replicates": 3, "speedup_method": "paired_t"}
    session: dict[str, Any] = {
        "schema_version": 4,
        "config": {"seed": 5},
        "rounds": [{"replicate": r, "seed": r, "block_wait_s": 0.25} for r in range(3)],
        "arms": [{"name": "eager", "results": [row]}, {"name": "inductor", "results": [row]}],
    }
    if seeding is not None:
        session["seeding"] = seeding
    return session


SEEDING = {"per_round": True, "accuracy_seed": 5, "wait_max_s": 0.05, "script_own_seed": None}


def test_the_method_notes_say_rounds_differ_in_seed_and_block_phase():
    notes = method_notes(SessionModel.read(_session(SEEDING)))
    note = next(n for n in notes if n.startswith("rounds: each round its own seed"))
    assert "50.00 ms" in note and "0.75 s in all" in note
    assert "the accuracy check uses the run's seed (5)" in note
    assert not any("sets its own seed" in n for n in notes)


def test_a_script_that_seeds_itself_is_said_to_vary_only_in_the_rest():
    seeding = {**SEEDING, "script_own_seed": "torch.manual_seed at train.py:12"}
    notes = seeding_notes(SessionModel.read(_session(seeding)))
    assert notes[-1].startswith("the script sets its own seed (torch.manual_seed at train.py:12)")
    assert "not in its weights or data" in notes[-1]


def test_an_older_session_gets_no_note():
    assert seeding_notes(SessionModel.read(_session(None))) == []
    assert not any(n.startswith("rounds:") for n in method_notes(SessionModel.read(_session(None))))


def test_a_randomised_order_is_said_and_an_older_fixed_one_is_not():
    notes = seeding_notes(SessionModel.read(_session({**SEEDING, "order_randomised": True})))
    assert any(n.startswith("the arms' order: the Williams square randomised") for n in notes)
    assert not any("randomised" in n for n in seeding_notes(SessionModel.read(_session(SEEDING))))
