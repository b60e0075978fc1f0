"""A model with a data-dependent branch in forward: TorchDynamo cannot trace `if tensor:`, so
the graph breaks there and the rest runs as a second graph."""

import torch.nn as nn


class BranchyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 64)
        self.head = nn.Linear(64, 1)

    def forward(self, x):
        h = self.fc1(x).relu()
        if h.mean() > 0.5:  # data-dependent branch: a graph break
            h = h * 0.5
        return self.head(self.fc2(h).relu())
