import torch
import torch.nn as nn

# A generator of its own, which torch.manual_seed does not reseed: every forward draws new noise,
# so two runs seeded alike still differ.
_NOISE = torch.Generator().manual_seed(0)


class NoisyNet(nn.Module):
    """fc1 -> ReLU -> + noise from _NOISE -> fc2, input (B, 8), 4 outputs."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        noise = torch.rand(h.shape, generator=_NOISE).to(h.device, h.dtype)
        return self.fc2(h + 0.1 * noise)
