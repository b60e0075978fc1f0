"""Run the real CLI in a subprocess, as a user would, and read back what it wrote."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tcprof.profiler.store.files import SESSION_JSON, read_session

MODELS = Path(__file__).parent / "models"
FAST = [
    "--warmup",
    "1",
    "--steps",
    "6",
    "--blocks",
    "2",
    "--replicates",
    "1",
    "--min-block-ms",
    "0",
    "--quiet",
]


def run_cli(args: list[str], out: Path, timeout: float = 240) -> tuple[int, str, str, dict | None]:
    """Tests run one round unless they ask for more (the default's rounds are for users)."""
    if "--replicates" not in args:
        args = [*args, "--replicates", "1"]
    proc = subprocess.run(
        [sys.executable, "-m", "tcprof.profiler", "run", *args, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    session_file = out / SESSION_JSON
    session = read_session(session_file) if session_file.exists() else None  # paths absolute
    return proc.returncode, proc.stdout, proc.stderr, session


def events(out: Path) -> list[dict]:
    return [
        json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()
    ]


def arm(session: dict, name: str) -> dict:
    return next(a for a in session["arms"] if a["name"] == name)
