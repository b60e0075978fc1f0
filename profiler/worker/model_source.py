"""Load a user's model file and build the model from it, without editing the file.

A file may define several nn.Module classes (blocks and the top model), a `make_model()`
factory, or models whose constructor needs a config object; the user can then name a class
or give a factory expression that is evaluated in the file's namespace.

A model given to `tcprof.run` as a Python object (a class defined in a notebook, say) arrives
as a pickled factory (config.PICKLED_MODEL_FILE, written by tcprof.profiler.api.shipping): it
is loaded into a module of its own holding the factory under its name and, when given, its
`make_batch`, so everything after the import treats it as it treats a file.
"""

from __future__ import annotations

import importlib.util
import inspect
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch.nn as nn

from tcprof.profiler.config import PICKLED_MODEL_SUFFIX


class ModelLoadError(Exception):
    """The model could not be built; `kind` is 'load' or 'syntax'. `cause` is the underlying
    error in one line; `needs_arguments` says the model's constructor (or factory) wants
    arguments that nothing gave it, which the user fixes with a factory expression."""

    def __init__(
        self,
        message: str,
        kind: str = "load",
        file: str | None = None,
        line: int | None = None,
        cause: str | None = None,
        needs_arguments: bool = False,
    ):
        super().__init__(message)
        self.kind, self.file, self.line = kind, file, line
        self.cause = cause or message
        self.needs_arguments = needs_arguments


@dataclass
class Candidate:
    name: str
    kind: str  # "class" or "factory"
    zero_arg: bool
    signature: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "zero_arg": self.zero_arg,
            "signature": self.signature,
        }


def import_file(path: str) -> ModuleType:
    file = Path(path).expanduser().resolve()
    if not file.exists():
        raise ModelLoadError(f"model file not found: {path}")
    if file.is_file() and file.suffix == PICKLED_MODEL_SUFFIX:
        return load_pickled(file)
    if file.is_dir() or file.suffix != ".py":
        raise ModelLoadError(f"not a Python file: {path}")
    # The file's folder goes on sys.path so that its sibling imports work as when run as a script.
    sys.path.insert(0, str(file.parent))
    mod_name = f"tcprof_user_{file.stem}"
    spec = importlib.util.spec_from_file_location(mod_name, file)
    if spec is None or spec.loader is None:
        raise ModelLoadError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module  # dataclasses, pickling and dynamo's source lookup need this
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise ModelLoadError(
            f"syntax error in {exc.filename or file}, line {exc.lineno}: {exc.msg}",
            kind="syntax",
            file=exc.filename or str(file),
            line=exc.lineno,
        ) from exc
    return module


def load_pickled(file: Path) -> ModuleType:
    """A pickled factory ({"name", "make_model", "make_batch"}) as a module: the factory under
    its name, make_batch beside it. cloudpickle wrote it; plain pickle reads it, importing
    cloudpickle and the modules the model refers to (by reference) as it goes."""
    try:
        with open(file, "rb") as handle:
            payload = pickle.load(handle)  # noqa: S301 - the run's own file, written by this run
        name, factory = str(payload["name"]), payload["make_model"]
    except ModuleNotFoundError as exc:
        raise ModelLoadError(
            f"cannot load the model shipped from Python: the worker cannot import {exc.name!r} "
            "(a module the model refers to must be importable where the workers run)",
            cause=f"ModuleNotFoundError: {exc}",
        ) from exc
    except Exception as exc:
        raise ModelLoadError(
            f"cannot load the model shipped from Python: {type(exc).__name__}: {exc}",
            cause=f"{type(exc).__name__}: {exc}",
        ) from exc
    module = ModuleType(f"tcprof_shipped_{name}")
    module.__file__ = str(file)
    module.__tcprof_shipped__ = name  # type: ignore[attr-defined]
    setattr(module, name, factory)
    if payload.get("make_batch") is not None:
        module.make_batch = payload["make_batch"]  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    return module


def _zero_arg(obj: Any) -> tuple[bool, str]:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return False, "(...)"
    required = [
        p
        for p in sig.parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    return not required, str(sig)


def list_candidates(module: ModuleType) -> list[Candidate]:
    """nn.Module classes defined in the file (in source order), then a make_model() factory."""
    found: list[tuple[int, Candidate]] = []
    shipped = vars(module).get("__tcprof_shipped__")  # a class shipped from Python keeps its module
    for name, obj in vars(module).items():
        if (
            inspect.isclass(obj)
            and issubclass(obj, nn.Module)
            and (obj.__module__ == module.__name__ or name == shipped)
        ):
            zero, sig = _zero_arg(obj)
            line = _source_line(obj)
            found.append((line, Candidate(name, "class", zero, sig)))
    found.sort(key=lambda item: item[0])
    candidates = [c for _, c in found]
    factory = getattr(module, "make_model", None)
    if callable(factory):
        zero, sig = _zero_arg(factory)
        candidates.append(Candidate("make_model", "factory", zero, sig))
    return candidates


def _source_line(obj: Any) -> int:
    try:
        return inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return 10**9


def _definition(obj: Any) -> dict[str, Any]:
    """file= and line= of where obj (a function, or a class's own __init__) is defined."""
    init = vars(obj).get("__init__") if inspect.isclass(obj) else None
    obj = init if inspect.isfunction(init) else obj
    try:
        return {"file": inspect.getsourcefile(obj), "line": inspect.getsourcelines(obj)[1]}
    except (OSError, TypeError):
        return {}


def choose_default(candidates: list[Candidate]) -> Candidate | None:
    """make_model() if present, else the last zero-argument class (top models come last)."""
    for c in candidates:
        if c.kind == "factory" and c.zero_arg:
            return c
    zero = [c for c in candidates if c.kind == "class" and c.zero_arg]
    return zero[-1] if zero else None


def build_model(
    module: ModuleType, model: str | None, factory: str | None
) -> tuple[nn.Module, str]:
    """Return (model, description of how it was built)."""
    namespace = vars(module)
    if factory:
        try:
            obj = eval(factory, namespace)  # noqa: S307 - the user's own expression on their own file
        except SyntaxError as exc:
            raise ModelLoadError(
                f"factory expression {factory!r} is not valid Python: {exc.msg}"
            ) from exc
        except Exception as exc:
            raise ModelLoadError(
                f"factory {factory!r} raised {type(exc).__name__}: {exc}",
                cause=f"{type(exc).__name__}: {exc}",
            ) from exc
        return _check_module(obj, factory), factory
    candidates = list_candidates(module)
    if model:
        if model not in namespace:
            names = ", ".join(c.name for c in candidates) or "none"
            raise ModelLoadError(
                f"{model!r} is not defined in the model file (models found: {names})"
            )
        target = namespace[model]
        chosen = model
    else:
        if not candidates:
            raise ModelLoadError(
                "no nn.Module class or make_model() function is defined in the model file"
            )
        pick = choose_default(candidates)
        if pick is None:
            needs = "; ".join(f"{c.name}{c.signature}" for c in candidates if c.kind == "class")
            raise ModelLoadError(
                f"no model can be built without arguments ({needs}); pass a factory expression, "
                f'e.g. --factory "{candidates[-1].name}(...)"',
                cause=_missing_arguments(namespace[candidates[-1].name]) or needs,
                needs_arguments=True,
                **_definition(namespace[candidates[-1].name]),
            )
        target, chosen = namespace[pick.name], pick.name
    try:
        obj = target()
    except TypeError as exc:
        if _zero_arg(target)[0]:  # the call bound: the TypeError is from inside the constructor
            raise ModelLoadError(
                f"building {chosen}() raised TypeError: {exc}", cause=f"TypeError: {exc}"
            ) from exc
        raise ModelLoadError(
            f'{chosen}() needs arguments ({exc}); pass a factory expression, e.g. --factory "{chosen}(...)"',
            cause=str(exc),
            needs_arguments=True,
            **_definition(target),
        ) from exc
    except Exception as exc:
        raise ModelLoadError(
            f"building {chosen}() raised {type(exc).__name__}: {exc}",
            cause=f"{type(exc).__name__}: {exc}",
        ) from exc
    return _check_module(obj, f"{chosen}()"), f"{chosen}()"


def _missing_arguments(target: Any) -> str | None:
    """Python's own words for a call without arguments ("SimpleNet.__init__() missing 1
    required positional argument: 'width'"): binding fails before any of the body runs."""
    try:
        inspect.signature(target).bind()
    except TypeError:
        pass
    except ValueError:
        return None
    else:
        return None
    try:
        target()
    except TypeError as exc:
        return str(exc)
    except Exception:
        return None
    return None


def _check_module(obj: Any, how: str) -> nn.Module:
    if not isinstance(obj, nn.Module):
        raise ModelLoadError(f"{how} returned {type(obj).__name__}, not a torch.nn.Module")
    return obj


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
