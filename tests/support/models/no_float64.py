import torch.nn as nn


class NoFloat64Net(nn.Module):
    """Casts its hidden state to float32, so a float64 copy fails in fc2 (dtype mismatch);
    in float32 the cast is a no-op. Input (B, 8)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(self.fc1(x).float())
