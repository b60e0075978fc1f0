"""A model given as a Python object (an nn.Module class, or a callable that builds one, with an
optional `make_batch`) shipped to the workers, which are other processes: pickled by value with
cloudpickle into the run's folder (config.PICKLED_MODEL_FILE), where a worker loads it
(worker/model_source.py) as it would import a model file.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import keyword
import site
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from tcprof.profiler.config import PICKLED_MODEL_FILE

# What cloudpickle cannot carry, in the one line an error and the docs give.
CANNOT_SHIP = (
    "classes and functions defined in a notebook, a script or a module of your own travel by "
    "value with the globals they use; what they capture of live process state (open files, "
    "sockets, locks, threads, a CUDA context) cannot travel, and what they import from "
    "installed packages travels by name, so the workers must be able to import it"
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


TORCH_MODULE = "torch.nn.modules.module.Module"


def is_module_instance(obj: object) -> bool:
    """An nn.Module itself rather than what builds one (told without importing torch)."""
    return any(f"{c.__module__}.{c.__qualname__}" == TORCH_MODULE for c in type(obj).__mro__)


def _installed(module: ModuleType) -> bool:
    """A module the workers import by name: built in, or under a site-packages folder (an
    installed package, tcprof and torch included)."""
    file = getattr(module, "__file__", None)
    if not file:
        return True
    path = Path(file).resolve()
    roots = [*site.getsitepackages(), site.getusersitepackages(), sys.base_prefix, sys.prefix]
    if module.__name__.partition(".")[0] in ("tcprof", "torch"):
        return True
    return any(path.is_relative_to(Path(r).resolve()) for r in roots if r)


@contextlib.contextmanager
def _by_value(objects: list[Any]) -> Iterator[None]:
    """The user's own modules that define `objects` pickled by value while they are packed
    (a pytest file, a module beside a script: the workers could not import them by name;
    __main__, a notebook's cells included, is pickled by value already)."""
    import cloudpickle

    modules = {
        module.__name__: module
        for obj in objects
        if (module := sys.modules.get(getattr(obj, "__module__", None) or "")) is not None
        and module.__name__ != "__main__"
        and module.__name__ not in cloudpickle.list_registry_pickle_by_value()
        and not _installed(module)
    }
    for module in modules.values():
        cloudpickle.register_pickle_by_value(module)
    try:
        yield
    finally:
        for name in modules:
            cloudpickle.unregister_pickle_by_value(sys.modules[name])


def pack(model: Callable[..., Any], make_batch: Callable[..., Any] | None = None) -> Shipment:
    """The factory (a class, a callable, or a module instance, which every build copies) and
    make_batch, pickled by value. ValueError (one line, with
    CANNOT_SHIP) when cloudpickle cannot pickle them."""
    import cloudpickle

    name = factory_name(model)
    factory: Callable[..., Any] = model
    if is_module_instance(model):  # each build is a copy of it, its weights included
        name, factory = factory_name(type(model)), functools.partial(copy.deepcopy, model)
    payload = {"name": name, "make_model": factory, "make_batch": make_batch}
    try:
        with _by_value([type(model) if factory is not model else model, make_batch]):
            data = cloudpickle.dumps(payload)
    except Exception as exc:
        what = getattr(model, "__name__", type(model).__name__)
        raise ValueError(
            f"cannot ship {what} to the workers ({type(exc).__name__}: {exc}): {CANNOT_SHIP}"
        ) from exc
    return Shipment(name, data)
