"""The garbage collector around a model file's timed blocks: off during each block, as before,
and the heap left frozen from one block to the next, so the collection before a block walks
only what the last block left, not the whole heap of torch and TorchDynamo (0.1-0.3 s a block
when it did; docs/benchmarks.md, "Start-up of a default run")."""

from __future__ import annotations

import gc

import pytest

pytestmark = pytest.mark.timeout(60)


def test_the_heap_stays_frozen_between_blocks_and_thaws_when_they_are_done(worker):
    worker.measure(8, 2, block=0)
    assert gc.isenabled()  # between blocks the collector runs, over what is new
    frozen = gc.get_freeze_count()
    assert frozen > 0
    garbage = [[] for _ in range(1000)]  # made between blocks: not frozen, so collected
    del garbage
    worker.measure(8, 2, block=1)
    assert gc.isenabled() and gc.get_freeze_count() >= frozen
    worker.finish(8, detail=False)
    assert gc.get_freeze_count() == 0  # the untimed passes after the blocks collect as usual
    blocks = [e for e in worker.ch.events if e["type"] == "block_done"]  # type: ignore[attr-defined]
    assert [b["block"] for b in blocks] == [0, 1] and all(b["steps"] >= 2 for b in blocks)


def test_a_block_that_fails_thaws_the_heap(worker, monkeypatch):
    run = worker._run

    def failing_run(batch_size, n, phase, **kwargs):
        if phase == "measure":  # after the discarded step: the heap is frozen by then
            raise RuntimeError("a step failed")
        return run(batch_size, n, phase, **kwargs)

    monkeypatch.setattr(worker, "_run", failing_run)
    with pytest.raises(RuntimeError):
        worker.measure(8, 2, block=0)
    assert gc.isenabled() and gc.get_freeze_count() == 0
