"""Which stack frames are the user's: everything outside torch, tcprof, runpy and frozen
modules. Shared by the compile watch of a model file and of a script run unchanged."""

from __future__ import annotations

import os

import torch

TORCH_DIR = os.path.dirname(torch.__file__)
_OWN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # profiler/
_INTERNAL = (TORCH_DIR, _OWN, os.path.realpath(_OWN), os.path.realpath(TORCH_DIR))
MODULE_COMPILE = os.path.join(TORCH_DIR, "nn", "modules", "module.py")


def internal(filename: str) -> bool:
    """A frame of torch, of tcprof, of the standard library's runpy or of a frozen module."""
    return (
        filename.startswith(_INTERNAL)
        or filename.startswith("<")
        or os.path.basename(filename) == "runpy.py"
    )
