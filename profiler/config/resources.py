"""The files the program ships with (the top-level `resources` package), found on disk."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

RESOURCE_PACKAGE = "tcprof.resources"


def resource_path(*parts: str) -> Path:
    """A file or folder shipped in the `resources` package, as a path on disk.

    Found by the import system rather than from this file's location, so a checkout, an editable
    install and a wheel all resolve it; a path on disk because workers import example models by
    path."""
    found = importlib.resources.files(RESOURCE_PACKAGE)
    for part in parts:
        found = found.joinpath(part)
    if not isinstance(found, Path):
        raise RuntimeError(
            f"tcprof's {RESOURCE_PACKAGE!r} package is not on disk ({found!r}); "
            "install tcprof as files (pip install), not inside a zip"
        )
    return found
