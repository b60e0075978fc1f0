import time

import torch.nn as nn


class Slow(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        time.sleep(0.05)
        return self.fc(x)
