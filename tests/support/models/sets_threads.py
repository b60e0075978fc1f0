"""A model file that changes torch's thread count at import (arms would not be comparable)."""

import torch
import torch.nn as nn

torch.set_num_threads(1 if torch.get_num_threads() != 1 else 2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x)
