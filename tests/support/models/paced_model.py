"""A model whose arms' speeds are fixed by construction, for the CI-gate tests: a step's time
is mostly a pause, so the order of the arms holds on any machine, however loaded.

Its eager forward pauses EAGER_S; a compiled forward does not (dynamo traces the
`torch.compiler.is_compiling()` branch as taken, so the pause is not in the graph). Importing
it registers two backends that pause before running dynamo's graph: `paced_TESTING_ONLY`
(PACED_S: four times faster than eager) and `sleepy_TESTING_ONLY` (SLEEPY_S: three times
slower). Each pause varies by +-30% from a seeded generator, the same in every process, so an
interval has a width that is the model's own and not the machine's, and two runs of the same
arms agree. All arms train exactly as eager does.
"""

import random
import time

import torch
import torch.nn as nn
from torch._dynamo import list_backends, register_backend

# Pauses long beside what a loaded machine adds to a sleep (its scheduler's latency, a few ms)
EAGER_S = 0.04
PACED_S = 0.01
SLEEPY_S = 0.12
_jitter = random.Random(0)


def pause(seconds):
    time.sleep(seconds * _jitter.uniform(0.7, 1.3))


def pacing(seconds):
    def backend(gm, example_inputs):
        def run(*args):
            pause(seconds)
            return gm(*args)

        return run

    return backend


for _name, _seconds in (("paced_TESTING_ONLY", PACED_S), ("sleepy_TESTING_ONLY", SLEEPY_S)):
    if _name not in list_backends(exclude_tags=()):
        register_backend(pacing(_seconds), name=_name)


class Paced(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        if not torch.compiler.is_compiling():
            pause(EAGER_S)
        return self.fc(x)
