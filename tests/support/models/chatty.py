import sys

import torch.nn as nn

print('importing chatty: {"type": "steps"} not an event')


class Chatty(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls <= 2:
            print('{"type": "error", "kind": "fake"}')
            sys.stdout.flush()
        return self.fc(x)
