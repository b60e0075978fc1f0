"""`tcprof run [options] -- python SCRIPT ARGS` in a subprocess, as a user types it, and what it
wrote: tcprof's options go before `--`, the script's command after it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tcprof.profiler.store.files import SESSION_JSON, read_session

# a short schedule: 1 first + 1 warm-up + 2 blocks x (1 discarded + 2) = 8 steps of the script
SHORT = ["--warmup", "1", "--steps", "4", "--blocks", "2", "--replicates", "1", "--threads", "1"]
SHORT += ["--min-block-ms", "0", "--quiet"]


def run_script(
    options: list[str], command: list[str], out: Path, cwd: Path | None = None, timeout: float = 400
) -> tuple[int, str, str, dict | None]:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tcprof.profiler",
            "run",
            *options,
            "--out",
            str(out),
            "--",
            *command,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )
    session_file = out / SESSION_JSON
    session = read_session(session_file) if session_file.exists() else None
    return proc.returncode, proc.stdout, proc.stderr, session


def arm(session: dict, name: str) -> dict:
    return next(a for a in session["arms"] if a["name"] == name)


def notes(session: dict, name: str) -> list[str]:
    return [n["text"] for n in (arm(session, name).get("script") or {}).get("notes") or []]
