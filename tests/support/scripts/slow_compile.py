"""A small regression whose compile takes `--trace-sleep` seconds or more by construction: its
forward calls a custom op whose fake implementation (what TorchDynamo and AOTAutograd run to
trace it) sleeps, while the eager forward runs the real one at once. `--no-optimizer` compiles
the model and then never steps."""

import argparse
import time

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--trace-sleep", type=float, default=3.0)
parser.add_argument("--no-optimizer", action="store_true")
args = parser.parse_args()

if not hasattr(torch.ops.tcprof_test, "slow_trace"):  # a second run in the same process

    @torch.library.custom_op("tcprof_test::slow_trace", mutates_args=())
    def slow_trace(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    @slow_trace.register_fake
    def _(x: torch.Tensor) -> torch.Tensor:
        time.sleep(args.trace_sleep)
        return torch.empty_like(x)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.ops.tcprof_test.slow_trace(x))  # x needs no gradient


model = torch.compile(Net())
if args.no_optimizer:
    while True:
        model(torch.randn(16, 8))
        time.sleep(0.01)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(args.steps):
    x = torch.randn(16, 8)
    loss = nn.functional.mse_loss(model(x), x.sum(dim=1, keepdim=True))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
