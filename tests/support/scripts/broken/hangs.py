"""A script whose data loader hangs after a few steps (a dead file server, say)."""

import time

import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def batches():
    for i in range(1000):
        if i == 3:
            time.sleep(3600)  # waiting for data that never comes
        yield torch.randn(8, 4), torch.randn(8, 1)


for x, y in batches():
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
