"""A four-layer MLP (512 wide, GELU, LayerNorm): enough work per step for fusion to show."""

import torch.nn as nn


class MLP(nn.Module):
    def __init__(
        self, in_features: int = 256, hidden: int = 512, out_features: int = 10, depth: int = 4
    ):
        super().__init__()
        layers = []
        width = in_features
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.LayerNorm(hidden), nn.GELU()]
            width = hidden
        layers.append(nn.Linear(width, out_features))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
