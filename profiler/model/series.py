"""A session's series: which sessions measure the same thing, so that they group into a history
without the user naming them (session.json's `series`, docs/session-format.md).

Two sessions are in one series when they ran the same code entry with the same arms and batch
sizes under the same loop: the model file or script (relative to its repository's root, so
clones and worktrees agree; its absolute path outside a repository), its entry (the model or
factory and input shape; a script's module, arguments, sweep, step and unit), each arm's
compile settings (backend, mode, dynamic, fullgraph, regional, mark_dynamic, parallel; not its
label), the batch sizes, and the options that change the step itself (SERIES_OPTIONS).

What only sets how much or how precisely is measured is left out, as it may differ between
runs of one benchmark: rounds, steps, warm-up, blocks, the seed, a time budget, the A/A
control, accuracy and profiling passes, debug options. So is where it ran (the machine, a
remote host, torch): a history names those changes beside the figures instead.

The key is the first 12 hex digits of the SHA-256 of the parts as canonical JSON; `version`
changes whenever the recipe does, so keys of different recipes are never compared.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from tcprof.profiler.config.arm import ArmSpec
from tcprof.profiler.config.model import RunConfig
from tcprof.profiler.config.provenance import repo_root, source_file

SERIES_VERSION = 1
KEY_DIGITS = 12
# the run's options that change what one step is (the rest only change how it is measured)
SERIES_OPTIONS = (
    "device",
    "loop",
    "amp",
    "channels_last",
    "compile_optimizer",
    "optimizer",
    "threads",
    "warm_cache",
    "nproc",
    "nnodes",
    "parallel",
)
ARM_FIELDS = ("backend", "mode", "dynamic", "fullgraph", "regional", "mark_dynamic", "parallel")
SCRIPT_ENTRY = ("module", "args", "sweep", "step_on", "unit")
MODEL_ENTRY = ("model", "factory", "input_shape")
_DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(RunConfig) if f.default is not dataclasses.MISSING
}


def series_of(session: dict[str, Any]) -> dict[str, Any] | None:
    """{key, version, text, parts} for a session dict, or None when its config names no file
    (nothing to group it by). Sessions without `provenance` (before schema 4) find their
    repository's root from the file's path as it is now."""
    config = session.get("config") or {}
    parts = series_parts(config, _relative_file(session, config))
    if parts is None:
        return None
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return {
        "key": hashlib.sha256(canonical.encode()).hexdigest()[:KEY_DIGITS],
        "version": SERIES_VERSION,
        "text": series_text(parts),
        "parts": parts,
    }


def series_parts(config: dict[str, Any], file: str | None) -> dict[str, Any] | None:
    """What the key is made of (readable JSON), with `file` as the series names it."""
    if file is None:
        return None
    script = config.get("script")
    fields, entry_of = (
        (SCRIPT_ENTRY, script) if isinstance(script, dict) else (MODEL_ENTRY, config.get("source"))
    )
    entry = {k: (entry_of or {}).get(k) for k in fields}
    if isinstance(script, dict):
        entry["args"] = list(entry["args"] or [])
    return {
        "version": SERIES_VERSION,
        "file": file,
        "entry": entry,
        "arms": [_arm(a) for a in config.get("arms") or [] if isinstance(a, dict)],
        "batch_sizes": list(config.get("batch_sizes") or []),
        "options": {k: config.get(k, _DEFAULTS.get(k)) for k in SERIES_OPTIONS},
    }


def series_text(parts: dict[str, Any]) -> str:
    """The series in one line: `models/net.py:Net · eager, inductor · bs 32, 64 · train`."""
    entry = parts.get("entry") or {}
    name = entry.get("model") or entry.get("factory") or entry.get("module")
    args = " ".join(str(a) for a in entry.get("args") or [])
    what = f"{parts['file']}:{name}" if name else str(parts["file"])
    arms = ", ".join(_arm_name(a) for a in parts.get("arms") or [])
    sizes = ", ".join(str(b) for b in parts.get("batch_sizes") or [])
    options = parts.get("options") or {}
    loop = [str(options.get("loop") or "train"), str(options.get("device") or "cpu")]
    loop += [str(options["amp"])] if options.get("amp") else []
    loop += ["channels_last"] if options.get("channels_last") else []
    return " · ".join(p for p in (what, args, arms, f"bs {sizes}" if sizes else "", *loop) if p)


def _relative_file(session: dict[str, Any], config: dict[str, Any]) -> str | None:
    path = source_file(config)
    if path is None:
        return None
    if "provenance" in session:  # schema 4: as the engine found it when the run started
        git = (session.get("provenance") or {}).get("git") or {}
        return str(git["path"]) if git.get("path") else path
    root = repo_root(path)
    return Path(os.path.abspath(path)).relative_to(root).as_posix() if root else path


def _arm(data: dict[str, Any]) -> dict[str, Any]:
    spec = ArmSpec.from_dict(data)
    out = {k: getattr(spec, k) for k in ARM_FIELDS}
    if out["mode"] == "default":
        out["mode"] = None  # torch.compile's default, named or not
    return out


def _arm_name(arm: dict[str, Any]) -> str:
    return ArmSpec.from_dict({k: v for k, v in arm.items() if k != "label"}).name
