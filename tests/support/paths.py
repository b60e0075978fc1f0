"""Where the tests' own files are: the repository, small model files, saved-session data."""

from __future__ import annotations

from pathlib import Path

SUPPORT = Path(__file__).resolve().parent
ROOT = SUPPORT.parents[1]  # the repository (or the unpacked sdist)
MODELS = SUPPORT / "models"  # model files that misbehave on purpose, and small real ones
DATA = SUPPORT / "data"  # sessions saved by earlier versions
SSH_SHIM = SUPPORT / "ssh_shim.py"  # a stand-in for ssh (TCPROF_SSH_COMMAND)
