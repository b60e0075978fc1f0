"""Run the real CLI in a subprocess, as a user would, and read back what it wrote."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tcprof.profiler.store.files import SESSION_JSON, read_session
from tests.support.paths import MODELS  # noqa: F401  (re-exported for the tests)


def fast_args(
    *,
    warmup: int = 1,
    steps: int = 6,
    blocks: int = 2,
    replicates: int = 1,
    batch_sizes: str | None = None,
    accuracy: bool = False,
    quiet: bool = True,
) -> list[str]:
    """`tcprof run`'s options for a test: a short schedule with no minimum block length (the
    defaults' rounds and blocks are for users), the same numbers as `fast_config`, and no
    accuracy pass (its own process, about 5 s here) unless the test reads it."""
    args = ["--warmup", str(warmup), "--steps", str(steps), "--blocks", str(blocks)]
    args += ["--replicates", str(replicates), "--min-block-ms", "0"]
    if batch_sizes is not None:
        args += ["--batch-sizes", batch_sizes]
    if not accuracy:
        args.append("--no-accuracy")
    return [*args, "--quiet"] if quiet else args


def fast_config(**overrides: object) -> dict[str, object]:
    """RunConfig's fields for a test, the same schedule as `fast_args`."""
    return {"warmup": 1, "steps": 6, "blocks": 2, "replicates": 1, "min_block_ms": 0.0, **overrides}


FAST = fast_args()
FAST_CHECKED = fast_args(accuracy=True)  # with the untimed accuracy pass


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
