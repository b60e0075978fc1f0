"""A script that trains two optimizer steps and raises in its third: what it measured before
(the first step, its compile, the steps run) stays in the table."""

import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(30):
    if step == 2:
        raise RuntimeError("the batch at step 3 is corrupt")
    x = torch.randn(16, 8)
    loss = nn.functional.mse_loss(model(x), x.sum(dim=1, keepdim=True))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
