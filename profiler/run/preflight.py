"""What can be known wrong before any arm runs: a model file or script that is not there, a
torch.compile backend torch does not know (with the nearest name), a device this torch build
lacks. Checked once per recorded run, before the first arm's first round, so a typo costs a
second instead of the eager baseline's rounds.

The backends and devices are the torch of the arms' own interpreter, asked of an untimed
worker (forked from the fork server, which has TorchDynamo imported): the engine never imports
torch. Options a backend does not take (a mode on a backend other than inductor) are refused
by the config's own checks, earlier still. A run on `--host` has its torch there: its arms
check their backend when they set up. A name torch does not know but the model file or script
names in its source may be one it registers itself: that arm checks it when it sets up.

An arm with its own interpreter (`python=PATH`: another environment, another torch) is asked
in that interpreter, one probe per interpreter: it must start, import torch and reach tcprof's
worker, or the run is refused with one line naming what is missing; its backends and devices
are that torch's.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from pathlib import Path
from typing import Any

from tcprof.profiler.config import ArmSpec, RunConfig
from tcprof.profiler.config.backends import unknown_backend
from tcprof.profiler.process.inspection import probe_environment

PROBE_TIMEOUT_S = 60.0


def check_before_run(config: RunConfig, cancel: threading.Event | None = None) -> str | None:
    """The first thing wrong, as one line; None when nothing is known wrong (a probe of this
    interpreter that fails blocks nothing: the arms then say what is wrong themselves; an
    arm's own interpreter that fails its probe is refused)."""
    missing = _missing_file(config)
    if missing or config.host:
        return missing
    interpreters: dict[str | None, list[ArmSpec]] = {}
    for arm in config.run_arms:
        interpreters.setdefault(arm.python, []).append(arm)
    for python, arms in interpreters.items():
        if python is not None:
            problem = _check_interpreter(config, python, arms, cancel)
        else:
            problem = _check_own(config, arms, cancel)
        if problem:
            return problem
    return None


def _check_own(
    config: RunConfig, arms: list[ArmSpec], cancel: threading.Event | None
) -> str | None:
    """This interpreter's arms: asked only when a backend or a device needs it."""
    device = config.device.split(":")[0]
    if not any(arm.compiled for arm in arms) and device in ("cpu", "auto"):
        return None  # nothing a worker must be asked
    # asked even for backends every torch registers: the probe starts the fork server that the
    # accuracy pass forks from, while nothing else runs (skipped, the server started cold at the
    # accuracy pass instead: 3.8 s there against 2.3 s here, docs/benchmarks.md, fifth sitting)
    env = probe_environment(PROBE_TIMEOUT_S, cancel)
    if env.get("error"):
        return None
    return _check_torch(config, arms, env, "")


def _check_interpreter(
    config: RunConfig, python: str, arms: list[ArmSpec], cancel: threading.Event | None
) -> str | None:
    """An arm's own interpreter: there, started, with torch and tcprof's worker, then its
    backends and devices."""
    names = ", ".join(repr(arm.name) for arm in arms)
    found = shutil.which(python) if os.sep not in python else python
    if found is None or not os.path.isfile(found):
        return f"arm {names}: no interpreter at python={python}"
    if not os.access(found, os.X_OK):
        return f"arm {names}: python={python} is not executable"
    try:
        env = probe_environment(PROBE_TIMEOUT_S, cancel, python=python)
    except OSError as exc:
        return f"arm {names}: python={python} does not start ({exc.strerror or exc})"
    error = env.get("error")
    if error:
        if error.get("kind") == "cancelled":
            return None
        return f"arm {names}: python={python} {_what_is_missing(error)}"
    return _check_torch(config, arms, env, f" in python={python}")


def _what_is_missing(error: dict[str, Any]) -> str:
    """Why another interpreter gave no hello, as the end of one line."""
    output = f"{error.get('traceback') or ''}\n{error.get('message') or ''}"
    module = re.findall(r"No module named '([\w.]+)'", output)
    if module:
        top = module[-1].split(".")[0]
        if top == "torch":
            return "cannot import torch (install torch there)"
        if top == "tcprof":
            return "cannot reach tcprof's worker (tcprof is not importable there)"
        return f"lacks {top}, which tcprof's worker needs (pip install {top} there)"
    if error.get("kind") == "timeout":
        return f"gave no answer within {PROBE_TIMEOUT_S:g} s"
    message = str(error.get("message") or "failed").splitlines()[0]
    return f"cannot start tcprof's worker: {message}"


def _check_torch(
    config: RunConfig, arms: list[ArmSpec], env: dict[str, Any], where: str
) -> str | None:
    """The arms' backends and the device, against the torch that answered (`where`: which
    interpreter, for the line)."""
    known = env.get("backends") or []
    for arm in arms:
        if not arm.compiled:
            continue
        if known and arm.torch_backend not in known and not _named_in_source(config, arm):
            return unknown_backend(arm.backend, known) + where
    device = config.device.split(":")[0]
    devices = env.get("devices") or []
    if device not in ("cpu", "auto") and devices and device not in devices:
        return (
            f"device {config.device!r} was asked for, but this torch build{where} sees none "
            f"(devices here: {', '.join(devices)})"
        )
    return None


def _named_in_source(config: RunConfig, arm: ArmSpec) -> bool:
    """A backend the model file or script registers itself (`register_backend`) is named in
    its source; torch knows it only once that file runs, so the arm checks it then."""
    path = config.script.path if config.script is not None else config.source.path
    try:
        return arm.torch_backend in Path(path).read_text(errors="replace")
    except (OSError, ValueError):
        return False


def _missing_file(config: RunConfig) -> str | None:
    """The script or model file, gone since it was chosen (or never there: the API, the
    window's saved settings)."""
    if config.script is not None:
        if not Path(config.script.path).is_file():
            return f"no such script: {config.script.path}"
        return None
    path = Path(config.source.path)
    if config.source.path and not path.exists():
        return f"model file not found: {config.source.path}"
    return None
