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
"""

from __future__ import annotations

import threading
from pathlib import Path

from tcprof.profiler.config import ArmSpec, RunConfig
from tcprof.profiler.config.backends import unknown_backend
from tcprof.profiler.process.inspection import probe_environment

PROBE_TIMEOUT_S = 60.0


def check_before_run(config: RunConfig, cancel: threading.Event | None = None) -> str | None:
    """The first thing wrong, as one line; None when nothing is known wrong (a probe that
    fails blocks nothing: the arms then say what is wrong themselves)."""
    missing = _missing_file(config)
    if missing or config.host:
        return missing
    compiled = [arm for arm in config.run_arms if arm.compiled]
    device = config.device.split(":")[0]
    if not compiled and device in ("cpu", "auto"):
        return None  # nothing a worker must be asked
    env = probe_environment(PROBE_TIMEOUT_S, cancel)
    if env.get("error"):
        return None
    known = env.get("backends") or []
    for arm in compiled:
        if known and arm.torch_backend not in known and not _named_in_source(config, arm):
            return unknown_backend(arm.backend, known)
    devices = env.get("devices") or []
    if device not in ("cpu", "auto") and devices and device not in devices:
        return (
            f"device {config.device!r} was asked for, but this torch build sees none "
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
