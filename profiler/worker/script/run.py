"""One run of the user's script, exactly as `python` would run it, inside this worker.

`runpy` runs it as `__main__` with its own `sys.argv` (`[script, *args]`), its folder first on
`sys.path` (for `-m`, the working directory, as `python -m` puts it), in the working directory
tcprof was started in, with the same environment and the run's seeds set alike in every arm
(random, NumPy, torch and CUDA). Its stdin is empty (`/dev/null`): commands reach the worker on a
pipe of its own. Modules it imported from its own folder are forgotten after the run, so a second
run (the next phase of a sweep, the accuracy pass) imports them afresh, as a new `python` would.
"""

from __future__ import annotations

import os
import random
import runpy
import sys
from dataclasses import dataclass

import torch

from tcprof.profiler.config import ScriptSource
from tcprof.profiler.worker.script import alarm as script_alarm
from tcprof.profiler.worker.script.steps import NoFirstStep, ScriptStopped


@dataclass
class ScriptEnd:
    """How a run of the script ended."""

    how: str  # stopped (by tcprof) | returned | exit (SystemExit) | raised | no_step
    code: int | str | None = None  # SystemExit's code
    exc: BaseException | None = None  # what it raised


def set_seeds(seed: int) -> None:
    """The same generators in every arm before the script starts: random, NumPy, torch (CUDA
    included: manual_seed seeds every device)."""
    random.seed(seed)
    torch.manual_seed(seed)
    if "numpy" in sys.modules or _numpy_importable():
        import numpy as np

        np.random.seed(seed % 2**32)


def _numpy_importable() -> bool:
    import importlib.util

    return importlib.util.find_spec("numpy") is not None


def run_once(source: ScriptSource, args: list[str]) -> ScriptEnd:
    """Run the script to its end (or until tcprof stops it); never raises what it raises."""
    saved_argv, saved_path, saved_cwd, saved_stdin = (
        sys.argv[:],
        sys.path[:],
        os.getcwd(),
        sys.stdin,
    )
    before = set(sys.modules)
    folder = os.path.dirname(os.path.abspath(source.path))
    stdin = open(os.devnull, encoding="utf-8")
    try:
        os.chdir(source.cwd)
        sys.stdin = stdin
        sys.argv = [source.path, *args]
        sys.path.insert(0, source.cwd if source.module else folder)
        if source.module:
            runpy.run_module(source.module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(source.path, run_name="__main__")
    except ScriptStopped:
        return ScriptEnd("stopped")
    except NoFirstStep:
        return ScriptEnd("no_step")
    except SystemExit as exc:
        return ScriptEnd("exit", code=exc.code)
    except BaseException as exc:  # the script's own error (KeyboardInterrupt included)
        return ScriptEnd("raised", exc=exc)
    else:
        return ScriptEnd("returned")
    finally:
        script_alarm.cancel()
        sys.argv[:] = saved_argv
        sys.path[:] = saved_path
        sys.stdin = saved_stdin
        stdin.close()
        os.chdir(saved_cwd)
        _forget_modules(before, (folder, os.path.abspath(source.cwd)))


def _forget_modules(before: set[str], folders: tuple[str, ...]) -> None:
    """Drop the modules the run imported from the script's folder or working directory."""
    for name in set(sys.modules) - before:
        if name.split(".")[0] == "tcprof":
            continue
        path = getattr(sys.modules.get(name), "__file__", None) or ""
        if path and os.path.abspath(path).startswith(folders) and "site-packages" not in path:
            del sys.modules[name]
