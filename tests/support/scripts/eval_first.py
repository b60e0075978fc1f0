"""Evaluates under no_grad before it trains, as nanoGPT's train.py does at iteration 0: the
model's first compile happens before the first optimizer step. It evaluates again every
`--eval-every` steps on a batch of another size (a compile in an evaluation between steps)."""

import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--eval-every", type=int, default=4)
args = parser.parse_args()


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


@torch.no_grad()
def estimate_loss(batch: int) -> float:
    model.eval()
    x = torch.randn(batch, 8)
    loss = nn.functional.mse_loss(model(x), x.sum(dim=1, keepdim=True))
    model.train()
    return float(loss)


model = torch.compile(Net())
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(args.steps):
    if step % args.eval_every == 0:
        estimate_loss(16 if step == 0 else 5)
    x = torch.randn(16, 8)
    loss = nn.functional.mse_loss(model(x), x.sum(dim=1, keepdim=True))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
