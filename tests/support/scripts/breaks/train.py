"""A training script whose model breaks TorchDynamo's graph twice: in the script's own forward
(a branch on a tensor's value) and in the block it imports from model.py (`.item()`)."""

import argparse

import torch
from model import Block
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = Block(16)
        self.head = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.block(x)
        if h.sum() > 0:  # a graph break: Python branches on a tensor's value
            h = h * 2
        return self.head(h)


parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
args = parser.parse_args()
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(args.steps):
    x = torch.randn(8, 16)
    loss = nn.functional.mse_loss(model(x), x.mean(dim=1, keepdim=True))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
