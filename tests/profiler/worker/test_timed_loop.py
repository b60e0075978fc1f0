"""CUDA step timing without a GPU: CudaEventRing with stand-in events on a fake clock. Each step
advances the clock by a known time, so every step's time is known; the tests check that each
step's time comes from its own pair of events, that the ring grows between blocks and never
inside one unless it must, that every time is handed on after the block, in order, and that
the only synchronisation is the one after each block."""

from __future__ import annotations

import pytest

from tcprof.profiler.worker.timed_loop import RING_MARGIN, CudaEventRing

pytestmark = pytest.mark.timeout(60)

NS_PER_MS = 1_000_000


class Clock:
    def __init__(self) -> None:
        self.ns = 0

    def __call__(self) -> int:
        return self.ns


class FakeEvent:
    """A timing event: `record()` stamps the clock, `query()` is whether the "GPU" (`gpu`)
    has reached it, `elapsed_time` is the difference in milliseconds."""

    made = 0

    def __init__(self, world: World) -> None:
        self.world = world
        self.id = FakeEvent.made
        FakeEvent.made += 1
        self.at: int | None = None
        self.records = 0
        self.record_seq: int | None = None  # when it was last recorded, in the world's log

    def record(self) -> None:
        self.at = self.world.clock()
        self.records += 1
        self.record_seq = len(self.world.log)
        self.world.log.append(("record", self.id))

    def query(self) -> bool:
        self.world.queries += 1
        return self.at is not None and self.at <= self.world.gpu_done_ns

    def elapsed_time(self, end: FakeEvent) -> float:
        assert self.at is not None and end.at is not None
        # elapsed_time on an event the GPU has not reached would wait (or fail) on CUDA
        assert end.at <= self.world.gpu_done_ns, "read before the event completed"
        return (end.at - self.at) / NS_PER_MS


class World:
    """The clock, the log of what happened in order, and a stand-in for the GPU's progress."""

    def __init__(self, step_ms: list[float] | None = None) -> None:
        self.clock = Clock()
        self.log: list[tuple[str, object]] = []
        self.gpu_done_ns = -1  # the GPU has finished everything recorded up to this time
        self.queries = 0
        self.step_ms = step_ms or []  # the i-th step (by step index) takes step_ms[i]
        self.syncs_in_block = 0  # synchronisations logged before a block's last step

    def event(self) -> FakeEvent:
        self.log.append(("new", None))
        return FakeEvent(self)

    def synchronize(self) -> None:
        self.log.append(("sync", None))
        self.gpu_done_ns = self.clock.ns

    def step(self, batch: int) -> str:
        self.log.append(("step", batch))
        self.clock.ns += int(self.ms_of(batch) * NS_PER_MS)
        return f"loss{batch}"

    def ms_of(self, index: int) -> float:
        return self.step_ms[index] if index < len(self.step_ms) else 1.0

    def flush(self, start: int, ms: list[float]) -> None:
        self.log.append(("flush", (start, list(ms))))

    def ring(self, size: int = 0) -> CudaEventRing:
        return CudaEventRing(self.event, self.synchronize, clock=self.clock, size=size)

    def run(self, ring: CudaEventRing, n: int, first: int, **kw) -> tuple[object, int]:
        """One block, batch i for step i. Afterwards, any synchronisation logged before the
        block's last step was inside the block, and counts in `syncs_in_block`."""
        mark = len(self.log)
        try:
            return ring.run(self.step, list(range(10_000)), n, first, self.flush, **kw)
        finally:
            kinds = _kinds(self.log[mark:])
            if "step" in kinds:
                last_step = max(i for i, k in enumerate(kinds) if k == "step")
                self.syncs_in_block += kinds[:last_step].count("sync")

    def flushed(self) -> list[tuple[int, list[float]]]:
        return [entry for kind, entry in self.log if kind == "flush"]  # type: ignore[misc]


def _kinds(log: list[tuple[str, object]]) -> list[str]:
    return [kind for kind, _ in log]


def test_each_steps_time_comes_from_its_own_pair_of_events():
    step_ms = [3.0, 1.5, 7.25, 0.5, 2.0, 9.0, 4.0]
    world = World(step_ms)
    ring = world.ring()
    loss, ran = world.run(ring, n=5, first=2)
    assert (loss, ran) == ("loss6", 5)
    assert world.flushed() == [(2, [7.25, 0.5, 2.0, 9.0, 4.0])]
    # the i-th step ran between the i-th pair's records: begin, step, end
    steps = [i for i, (kind, _) in enumerate(world.log) if kind == "step"]
    for i, at in enumerate(steps):
        begin, end = ring.slots[i]
        assert begin.record_seq == at - 1 and end.record_seq == at + 1
        assert end.at - begin.at == int(step_ms[2 + i] * NS_PER_MS)


def test_batches_cycle_from_the_first_step_index():
    world = World()
    ring = world.ring()
    seen: list[int] = []

    def step(batch: int) -> None:
        seen.append(batch)
        world.step(0)

    ring.run(step, [10, 11, 12], 5, 4, world.flush)
    assert seen == [11, 12, 10, 11, 12]
    assert world.flushed() == [(4, [1.0] * 5)]


def test_the_ring_is_sized_for_the_whole_block_before_it_starts():
    world = World()
    ring = world.ring()
    assert ring.size == 0
    world.run(ring, n=40, first=0)
    assert ring.size == int(40 * RING_MARGIN) == 60
    assert ring.overflow == 0
    # every event was made (and recorded once, so the driver's event exists) before the block
    first_step = _kinds(world.log).index("step")
    assert _kinds(world.log).count("new") == 120
    assert "new" not in _kinds(world.log)[first_step:]
    assert world.flushed() == [(0, [1.0] * 40)]


def test_a_block_lengthened_by_min_ns_overflows_honestly_and_the_next_block_has_room():
    world = World()  # every step 1 ms
    ring = world.ring()
    world.run(ring, n=4, first=0)  # a short block: 4 steps, a ring of 6
    assert ring.size == 6
    world.log.clear()

    # from a 1-ms step the ring predicts 20 steps for 20 ms and grows before the block
    loss, ran = world.run(ring, n=4, first=4, min_ns=20 * NS_PER_MS)
    assert ran == 20 and ring.overflow == 0
    assert ring.size == 30
    kinds = _kinds(world.log)
    assert "new" not in kinds[kinds.index("step") :]
    assert world.flushed() == [(4, [1.0] * 20)]

    # steps that turn ten times faster overflow the prediction: pairs are added mid-block,
    # without a synchronisation, every step is still timed, and the overflow is counted
    world.log.clear()
    world.step_ms = [0.1] * 1000
    loss, ran = world.run(ring, n=4, first=24, min_ns=20 * NS_PER_MS)
    assert ran == 200
    assert ring.overflow == 200 - 30
    assert world.syncs_in_block == 0
    assert _kinds(world.log).count("sync") == 1
    ((start, ms),) = world.flushed()
    assert start == 24 and ms == pytest.approx([0.1] * 200)
    assert ring.size == 300  # grown after the block, from the 200 steps it ran

    # the next block of the same length fits without adding a pair
    world.log.clear()
    loss, ran = world.run(ring, n=4, first=224, min_ns=20 * NS_PER_MS)
    assert ran == 200 and ring.overflow == 0
    kinds = _kinds(world.log)
    assert "new" not in kinds[kinds.index("step") :]


def test_a_longer_block_grows_the_ring_before_it_starts():
    world = World()
    ring = world.ring(size=8)
    assert ring.size == 8
    world.run(ring, n=8, first=0)
    assert ring.size == 12  # 8 steps asked, times the margin, before the block
    world.log.clear()
    world.run(ring, n=30, first=8)
    assert ring.size == 45 and ring.overflow == 0
    kinds = _kinds(world.log)
    assert kinds.index("step") > max(i for i, k in enumerate(kinds) if k == "new")
    assert world.flushed() == [(8, [1.0] * 30)]


def test_every_time_is_handed_on_after_the_block_in_order_and_none_is_lost():
    step_ms = [float(i % 7 + 1) / 4 for i in range(500)]
    world = World(step_ms)
    ring = world.ring(size=3)
    first = 0
    for n in (5, 17, 2, 60, 1, 33):
        world.log.clear()
        loss, ran = world.run(ring, n=n, first=first)
        assert ran == n and loss == f"loss{first + n - 1}"
        kinds = _kinds(world.log)
        last_step = max(i for i, k in enumerate(kinds) if k == "step")
        # one synchronisation, after the last step; then the one flush
        assert kinds.count("sync") == 1 and kinds.index("sync") > last_step
        assert kinds.count("flush") == 1 and kinds.index("flush") > kinds.index("sync")
        assert world.flushed() == [(first, step_ms[first : first + n])]
        first += n
    assert world.syncs_in_block == 0


def test_synchronize_is_never_called_while_a_block_runs():
    world = World()
    syncs_at: list[int] = []

    def synchronize() -> None:
        syncs_at.append(world.clock.ns)
        world.synchronize()

    ring = CudaEventRing(world.event, synchronize, clock=world.clock)
    world.run(ring, n=3, first=0)
    world.run(ring, n=10, first=3, min_ns=50 * NS_PER_MS)  # lengthened to 50 steps
    world.run(ring, n=2, first=53)
    world.step_ms = [1.0] * 55 + [0.25] * 400  # four times faster: the block overflows
    world.run(ring, n=1, first=55, min_ns=50 * NS_PER_MS)
    assert ring.overflow == 200 - 75
    # once per block, at the moment its last step ended, and never inside one
    assert syncs_at == [3 * NS_PER_MS, 53 * NS_PER_MS, 55 * NS_PER_MS, 105 * NS_PER_MS]
    assert world.syncs_in_block == 0


def test_a_block_of_no_steps_waits_for_nothing():
    world = World()
    ring = world.ring()
    assert world.run(ring, n=0, first=0) == (None, 0)
    assert "sync" not in _kinds(world.log) and world.flushed() == []


def test_progress_hands_on_only_finished_steps_without_synchronising():
    world = World()  # every step 1 ms
    ring = world.ring()
    flushes_in_block: list[tuple[int, list[float]]] = []

    def step(batch: int) -> str:
        loss = world.step(batch)
        world.gpu_done_ns = world.clock.ns - 3 * NS_PER_MS  # the GPU runs three steps behind
        return loss

    def flush(start: int, ms: list[float]) -> None:
        if "sync" not in _kinds(world.log):
            flushes_in_block.append((start, ms))
        world.flush(start, ms)

    loss, ran = ring.run(step, list(range(100)), 25, 0, flush, progress_ns=10 * NS_PER_MS)
    assert ran == 25
    kinds = _kinds(world.log)
    assert kinds.count("sync") == 1 and kinds[-2:] == ["sync", "flush"]
    # at 10 ms and at 20 ms: the steps done by then (three behind), never one still running
    assert flushes_in_block == [(0, [1.0] * 7), (7, [1.0] * 10)]
    assert world.flushed()[-1] == (17, [1.0] * 8)
    starts = [s for s, _ in world.flushed()]
    lengths = [len(ms) for _, ms in world.flushed()]
    assert [s + n for s, n in zip(starts, lengths, strict=True)][:-1] == starts[1:]
    assert sum(lengths) == 25


def test_a_step_that_raises_leaves_the_ring_usable():
    world = World()
    ring = world.ring()

    def bad(batch: int) -> None:
        world.step(batch)
        if batch == 2:
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        ring.run(bad, list(range(10)), 5, 0, world.flush)
    assert world.flushed() == [] and "sync" not in _kinds(world.log)
    world.log.clear()
    assert world.run(ring, n=4, first=3)[1] == 4
    assert world.flushed() == [(3, [1.0] * 4)]
