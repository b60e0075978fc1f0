"""The block breaks TorchDynamo's graph where it reads a tensor as a Python number."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = x.abs().mean().item()  # a graph break: a tensor read as a Python float
        return torch.tanh(self.fc(x)) / (1.0 + scale)
