"""A small regression net with dropout, trained for a fixed number of steps: inductor draws its
own dropout masks unless fallback_random is on, so its loss curve parts from eager's without it."""

import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
args = parser.parse_args()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 1))
model = torch.compile(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(args.steps):
    x = torch.randn(16, 8)
    loss = nn.functional.mse_loss(model(x), x.sum(dim=1, keepdim=True))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
