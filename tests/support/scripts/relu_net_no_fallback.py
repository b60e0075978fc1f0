"""relu_net.py that fails whenever inductor's fallback_random is on: the accuracy pass's retry
with the switch then fails, and the arm keeps the verdict of the run it was judged by."""

import argparse

import torch
import torch._inductor.config as inductor_config
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
args = parser.parse_args()
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(args.steps):
    if inductor_config.fallback_random:
        raise RuntimeError("this script refuses fallback_random")
    x = torch.randn(16, 8)
    loss = nn.functional.mse_loss(model(x), x.sum(dim=1, keepdim=True))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
