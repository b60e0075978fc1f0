"""An inference loop: it calls its model and never steps an optimizer."""

import time

import torch

model = torch.nn.Linear(4, 1)
with torch.no_grad():
    while True:
        model(torch.randn(2, 4))
        time.sleep(0.01)
