"""A model given as a Python object (an nn.Module class, or a callable that builds one, with an
optional `make_batch`) shipped to the workers, which are other processes: pickled by value with
cloudpickle into the run's folder (config.PICKLED_MODEL_FILE), where a worker loads it
(worker/model_source.py) as it would import a model file.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcprof.profiler.config import PICKLED_MODEL_FILE

# What cloudpickle cannot carry, in the one line an error and the docs give.
CANNOT_SHIP = (
    "classes and functions defined in a notebook or __main__ travel by value with the globals "
    "they use; what they capture of live process state (open files, sockets, locks, threads, "
    "a CUDA context) cannot travel, and modules imported from files travel by name, so the "
    "workers must be able to import them"
)
DEFAULT_NAME = "make_model"


def factory_name(model: Callable[..., Any]) -> str:
    """The name the worker knows the factory by (the class's or function's own, when it is
    an identifier: 'TinyNet()' reads better than 'make_model()' in the reports)."""
    name = getattr(model, "__name__", "")
    ok = isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)
    return name if ok and name != "make_batch" else DEFAULT_NAME


@dataclass(frozen=True)
class Shipment:
    """The pickled factory, made before the run's folder exists (a model that cannot travel
    is refused before anything is created), written into the folder once it does."""

    name: str
    data: bytes = field(repr=False)

    def write(self, folder: Path) -> Path:
        path = folder / PICKLED_MODEL_FILE
        path.write_bytes(self.data)
        return path


def pack(model: Callable[..., Any], make_batch: Callable[..., Any] | None = None) -> Shipment:
    """The factory (and make_batch) pickled by value. ValueError (one line, with
    CANNOT_SHIP) when cloudpickle cannot pickle them."""
    import cloudpickle

    name = factory_name(model)
    payload = {"name": name, "make_model": model, "make_batch": make_batch}
    try:
        data = cloudpickle.dumps(payload)
    except Exception as exc:
        what = getattr(model, "__name__", type(model).__name__)
        raise ValueError(
            f"cannot ship {what} to the workers ({type(exc).__name__}: {exc}): {CANNOT_SHIP}"
        ) from exc
    return Shipment(name, data)
