import os

import torch.nn as nn


class Crash(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        os._exit(3)
