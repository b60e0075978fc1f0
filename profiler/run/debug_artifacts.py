"""Debug artifacts that live outside the worker: environment for TORCH_COMPILE_DEBUG and
TORCH_TRACE (read by torch at import, so set before the worker starts) and the tlparse report."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tcprof.profiler.config import RunConfig, arm_artifacts_dir

TLPARSE_TIMEOUT_S = 120


def debug_env(config: RunConfig, arm_index: int) -> dict[str, str]:
    arm = config.run_arms[arm_index]
    folder = arm_artifacts_dir(config, arm_index)
    if not arm.compiled or folder is None:
        return {}
    env: dict[str, str] = {}
    if config.debug.compile_debug:
        env["TORCH_COMPILE_DEBUG"] = "1"
        env["TORCH_COMPILE_DEBUG_DIR"] = str(folder / "compile_debug")
    if config.debug.trace:
        env["TORCH_TRACE"] = str(folder / "trace")
    return env


def tlparse_path() -> str | None:
    """tlparse beside this interpreter (a venv's bin/ may not be on PATH), else on PATH."""
    local = Path(sys.executable).parent / "tlparse"
    return str(local) if local.exists() else shutil.which("tlparse")


def tlparse_available() -> bool:
    return tlparse_path() is not None


def render_tlparse(folder: Path | None) -> list[dict[str, Any]]:
    """Events describing the TORCH_TRACE logs of one arm and, if tlparse is installed, its report."""
    if folder is None or not (folder / "trace").is_dir():
        return []
    events: list[dict[str, Any]] = []
    for log in sorted((folder / "trace").glob("*.log")):
        events.append({"type": "artifact", "kind": "torch_trace", "path": str(log)})
        if not tlparse_available():
            events.append(
                {
                    "type": "log",
                    "stream": "tcprof",
                    "text": "tlparse is not installed (pip install tlparse); the raw TORCH_TRACE log is kept",
                }
            )
            continue
        out = folder / "tlparse" / log.stem
        try:
            subprocess.run(
                [
                    tlparse_path() or "tlparse",
                    str(log),
                    "-o",
                    str(out),
                    "--no-browser",
                    "--overwrite",
                ],
                capture_output=True,
                timeout=TLPARSE_TIMEOUT_S,
                check=True,
            )
            events.append({"type": "artifact", "kind": "tlparse", "path": str(out / "index.html")})
        except (subprocess.SubprocessError, OSError) as exc:
            events.append(
                {"type": "log", "stream": "tcprof", "text": f"tlparse failed on {log.name}: {exc}"}
            )
    return events
