"""A script that ends on its own after a few steps, whatever tcprof asks."""

import sys

import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
try:
    for step in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
finally:
    print("cleanup ran")
