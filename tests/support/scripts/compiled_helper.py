"""Compiles a helper function outside the model (its loss), checks it once under no_grad
before training, then calls it in every step: the model itself is never compiled."""

import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
args = parser.parse_args()


@torch.compile
def loss_fn(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return (pred - target).pow(2).mean() + 0.01 * pred.abs().mean()


model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
with torch.no_grad():
    assert float(loss_fn(torch.zeros(16, 1), torch.zeros(16, 1))) == 0.0
for step in range(args.steps):
    x = torch.randn(16, 8)
    loss = loss_fn(model(x), x.sum(dim=1, keepdim=True))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
