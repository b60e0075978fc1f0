"""A model whose arms' speeds are fixed by construction, for the CI-gate tests: a step's time
is mostly sleep, so the order of the arms holds on any machine, however loaded.

Its eager forward sleeps EAGER_SLEEP_S; a compiled forward does not (dynamo traces the
`torch.compiler.is_compiling()` branch as taken, so the sleep is not in the graph). Importing
it registers `sleepy_TESTING_ONLY`, a backend that sleeps SLEEPY_S before running dynamo's
graph. So `aot_eager` is several times faster than eager and `sleepy_TESTING_ONLY` several
times slower, and both train exactly as eager does.
"""

import time

import torch
import torch.nn as nn
from torch._dynamo import list_backends, register_backend

EAGER_SLEEP_S = 0.004
SLEEPY_S = 0.02
SLEEPY = "sleepy_TESTING_ONLY"


def sleepy(gm, example_inputs):
    def run(*args):
        time.sleep(SLEEPY_S)
        return gm(*args)

    return run


if SLEEPY not in list_backends(exclude_tags=()):
    register_backend(sleepy, name=SLEEPY)


class Paced(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        if not torch.compiler.is_compiling():
            time.sleep(EAGER_SLEEP_S)
        return self.fc(x)
