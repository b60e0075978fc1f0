"""Harness overhead, measured side by side in one run.

1. Our reported median step time against a bare hand-written loop of the same training step,
   for a model whose step takes >= 1 ms (the `mlp` example, batch size 256). Both run in one
   worker process on the same model, optimizer and batches, alternating in short blocks (so the
   machine's drift, which moves step times here by +-20% from one process to the next, hits
   both alike): our side is the worker's real `measure` command (timed loop, batched events
   written to the event pipe, memory sampling, the medians read back from those events); the
   bare side is `for x in batches: t0; out = model(x); loss = mse_loss(out, y); loss.backward();
   opt.step(); opt.zero_grad(); t1`. Target: within 2%.
2. Per-step cost of our instrumentation for a tiny model (the seed's SimpleModel): wall time per
   step of the worker's `measure` against the same steps in a plain for-loop with no timing at
   all, alternating. Target: < 20 us.

Run: .venv/bin/python -m bench.engine_overhead [--rounds 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time

import torch
import torch.nn.functional as F

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.config.examples import example_path
from tcprof.profiler.worker.arm_worker import ArmWorker
from tcprof.profiler.worker.channel import EventChannel


class PipeReader:
    """Collects the events the worker writes, as the engine would."""

    def __init__(self) -> None:
        r, w = os.pipe()
        self.fd = w
        self.ms: list[float] = []
        self._file = os.fdopen(r, "rb")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self._file:
            event = json.loads(line)
            if event.get("type") == "steps" and event.get("phase") == "measure":
                self.ms.extend(event["ms"])


def make_worker(example: str, batch_size: int) -> tuple[ArmWorker, PipeReader]:
    reader = PipeReader()
    worker = ArmWorker(EventChannel(reader.fd))
    cfg = RunConfig(
        ModelSource(str(example_path(example))),
        arms=(ArmSpec("eager"),),
        batch_sizes=(batch_size,),
        warmup=10,
        steps=10_000,
    )
    worker.load(cfg.to_dict(), 0)
    worker.prepare(batch_size)
    return worker, reader


def bare_block(worker: ArmWorker, n: int, timed: bool) -> list[float]:
    model, opt, batches = worker.model, worker.optimizer, worker.batches
    target = worker.loss_of._fixed_target(model(*batches[0].args))  # the same fixed MSE target
    out_ms = []
    clock = time.perf_counter_ns
    for i in range(n):
        x = batches[i % len(batches)].args[0]
        t0 = clock() if timed else 0
        loss = F.mse_loss(model(x), target)
        loss.backward()
        opt.step()
        opt.zero_grad()
        if timed:
            out_ms.append((clock() - t0) / 1e6)
    return out_ms


def wait_for(reader: PipeReader, count: int) -> None:
    while len(reader.ms) < count:
        threading.Event().wait(0.001)


def median_overhead(rounds: int, block: int, batch_size: int) -> None:
    worker, reader = make_worker("mlp", batch_size)
    bare: list[float] = []
    for r in range(rounds):  # the order alternates too: neither side always runs first
        if r % 2:
            bare += bare_block(worker, block, timed=True)
        expected = len(reader.ms) + block
        worker.measure(batch_size, block)
        wait_for(reader, expected)
        if not r % 2:
            bare += bare_block(worker, block, timed=True)
    ours, theirs = statistics.median(reader.ms), statistics.median(bare)
    print(
        f"harness median (mlp, bs={batch_size}, {rounds} alternating blocks of {block} steps): "
        f"bare loop {theirs:.3f} ms, tcprof reported {ours:.3f} ms, ratio {ours / theirs:.4f} "
        f"({(ours / theirs - 1) * 100:+.2f}%) [target within 2%]"
    )


def instrumentation_cost(rounds: int, block: int) -> None:
    worker, reader = make_worker("simple", 32)
    torch.set_num_threads(torch.get_num_threads())
    plain_us, ours_us = [], []
    for r in range(rounds):
        for side in (0, 1) if r % 2 else (1, 0):
            t0 = time.perf_counter_ns()
            if side == 0:
                bare_block(worker, block, timed=False)
                plain_us.append((time.perf_counter_ns() - t0) / block / 1e3)
            else:
                worker.measure(32, block)
                ours_us.append((time.perf_counter_ns() - t0) / block / 1e3)
    diffs = [o - p for o, p in zip(ours_us, plain_us, strict=True)]
    print(
        f"instrumentation (SimpleModel, bs=32, {rounds} alternating blocks of {block} steps): "
        f"plain loop {statistics.median(plain_us):.2f} us/step, tcprof measure {statistics.median(ours_us):.2f} us/step, "
        f"cost {statistics.median(diffs):.2f} us/step (p10 {sorted(diffs)[len(diffs) // 10]:.2f}, "
        f"p90 {sorted(diffs)[len(diffs) * 9 // 10]:.2f}) [target < 20 us]"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args()
    median_overhead(args.rounds, 20, args.batch_size)
    instrumentation_cost(args.rounds, 500)
    return 0


if __name__ == "__main__":
    sys.exit(main())
