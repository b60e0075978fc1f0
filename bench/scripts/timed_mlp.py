"""A training script that times itself as a user would: perf_counter from each step's first
forward to its optimizer step's end (tcprof's compute), written to $TIMES_OUT when set, and the
wall-clock time its first step ended at, to $FIRST_STEP_OUT when set. Under tcprof it runs the
same, its own timing unused."""

import argparse
import json
import os
import time

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=200)
parser.add_argument("--width", type=int, default=512)
parser.add_argument("--batch", type=int, default=64)
args = parser.parse_args()
torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(args.width, args.width), nn.ReLU(), nn.Linear(args.width, args.width)
)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = [torch.randn(args.batch, args.width) for _ in range(8)]
times = []
for step in range(args.steps):
    x = data[step % len(data)]
    t0 = time.perf_counter()
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    t1 = time.perf_counter()
    optimizer.zero_grad()
    times.append((t1 - t0) * 1000.0)
    if step == 0 and os.environ.get("FIRST_STEP_OUT"):
        with open(os.environ["FIRST_STEP_OUT"], "w") as f:
            json.dump({"first_step_end": time.time()}, f)
if os.environ.get("TIMES_OUT"):
    with open(os.environ["TIMES_OUT"], "w") as f:
        json.dump(times, f)
