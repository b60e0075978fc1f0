"""A model file that registers torch.compile backends of its own when it is imported: the wrong
ones of tests/support/faulty_backends.py, so `--arms eager,stale_weights_TESTING_ONLY` runs a
compiled arm whose second step computes with stale weights."""

import importlib.util
import sys
from pathlib import Path

import torch.nn as nn

_path = Path(__file__).resolve().parent.parent / "faulty_backends.py"
_spec = importlib.util.spec_from_file_location("tcprof_test_faulty_backends", _path)
_faulty = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _faulty  # registered before exec, as dataclasses and pickling need
_spec.loader.exec_module(_faulty)
_faulty.register()


class SmallNet(nn.Module):
    """fc1 -> ReLU -> fc2, input (B, 8), 4 outputs."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())
