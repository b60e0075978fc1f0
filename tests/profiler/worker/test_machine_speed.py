"""The machine's own speed read before and after each timed block (worker/machine_speed.py),
and what a row and the session's notes make of the readings (session/machine_speed.py,
model/notes.py): a block whose readings differ by more than 15% ran while it moved."""

from __future__ import annotations

import pytest

from tcprof.profiler.model.notes import machine_speed_note
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.session import machine_speed

pytestmark = pytest.mark.timeout(60)


def test_each_block_carries_the_machine_speed_before_and_after_it(worker):
    worker.measure(8, 2, block=0)
    (block,) = [e for e in worker.ch.events if e["type"] == "block_done"]  # type: ignore[attr-defined]
    assert 0 < block["reference_us"] < 100_000 and 0 < block["reference_after_us"] < 100_000


def test_a_block_moved_when_its_readings_differ_beyond_a_steady_machines():
    assert not machine_speed.moved({"reference_us": 200.0, "reference_after_us": 212.0})
    assert machine_speed.moved({"reference_us": 200.0, "reference_after_us": 260.0})
    assert machine_speed.moved({"reference_us": 260.0, "reference_after_us": 120.0})
    assert not machine_speed.moved({"quiet": True}), "a session made before the readings"
    assert not machine_speed.moved({"reference_us": 0, "reference_after_us": 120.0})
    blocks = [{"reference_us": 205.0, "reference_after_us": 199.0}, {"reference_us": 120.0}, {}]
    assert machine_speed.reading_range(blocks) == [120.0, 205.0]
    assert machine_speed.reading_range([{}]) is None


def _arms(*arms):
    doc = {
        "arms": [
            {
                "name": name,
                "results": [
                    {
                        "batch_size": 8,
                        "status": "ok",
                        "unsteady_blocks": unsteady,
                        "reference_us": readings,
                        "blocks_measured": 20,
                    }
                ],
            }
            for name, unsteady, readings in arms
        ]
    }
    return SessionModel.from_json(doc).arms


def test_the_session_names_a_machine_whose_speed_moved():
    moved = machine_speed_note(_arms(("eager", 3, [120.0, 260.0]), ("inductor", 4, [125, 255])))
    assert moved is not None
    assert "during 7 of 40 blocks" in moved and "took 120-260 us" in moved
    between = machine_speed_note(_arms(("eager", 0, [150.0, 240.0])))
    assert between is not None and "between blocks" in between
    assert machine_speed_note(_arms(("eager", 0, [200.0, 213.0]))) is None, "a steady machine"
    assert machine_speed_note(_arms(("eager", 0, None))) is None, "an older session"
