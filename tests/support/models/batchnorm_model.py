import torch.nn as nn


class BatchNormNet(nn.Module):
    """fc1 -> BatchNorm1d (train mode: batch statistics, running_mean/var and
    num_batches_tracked updated every step) -> ReLU -> fc2, input (B, 8), 4 outputs."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.bn = nn.BatchNorm1d(32)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.act(self.bn(self.fc1(x))))
