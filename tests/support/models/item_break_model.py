"""A deliberate `.item()` in forward: a graph break, and the Python number it returns is
guarded in the resumed frame (dynamo calls it ___stack0), so a new value compiles again."""

import torch.nn as nn


class ItemBreak(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)

    def forward(self, x):
        y = self.fc(x)
        scale = x.sum().item()
        return y * scale
