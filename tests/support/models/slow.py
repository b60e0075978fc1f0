"""Deliberately heavy steps (a few ms each on CPU), for timeout and interrupt tests."""

import torch.nn as nn


class Slow(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(3, 1024), nn.Linear(1024, 1024), nn.Linear(1024, 1024), nn.Linear(1024, 1)
        )

    def forward(self, x):
        return self.net(x)
