import torch.nn as nn


class DropoutNet(nn.Module):
    """fc1 -> ReLU -> Dropout(0.1) -> fc2, input (B, 8): the dropout mask must match eager."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.act = nn.ReLU()
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.drop(self.act(self.fc1(x))))
