"""`tcprof run [options] -- python SCRIPT ARGS`, as a user types it, and what it
wrote: tcprof's options go before `--`, the script's command after it."""

from __future__ import annotations

from pathlib import Path

from tcprof.profiler.folders.files import SESSION_JSON, read_session
from tests.support.cli import cli_in_process

# a short schedule: 1 first + 1 warm-up + 2 blocks x (1 discarded + 2) = 8 steps of the script
SHORT = ["--warmup", "1", "--steps", "4", "--blocks", "2", "--replicates", "1", "--threads", "1"]
SHORT += ["--min-block-ms", "0", "--quiet"]


def run_script(
    options: list[str], command: list[str], out: Path, cwd: Path | None = None
) -> tuple[int, str, str, dict | None]:
    """`tcprof run OPTIONS --out OUT -- COMMAND` started in `cwd`: (exit code, stdout, stderr,
    the saved session or None). It runs in this process (tests/support/cli.py says why), in
    `cwd` for the time of the run; its time limit is the test's pytest-timeout."""
    argv = ["run", *options, "--out", str(out), "--", *command]
    code, stdout, stderr = cli_in_process(argv, cwd=cwd)
    session_file = out / SESSION_JSON
    session = read_session(session_file) if session_file.exists() else None
    return code, stdout, stderr, session


def arm(session: dict, name: str) -> dict:
    return next(a for a in session["arms"] if a["name"] == name)


def notes(session: dict, name: str) -> list[str]:
    return [n["text"] for n in (arm(session, name).get("script") or {}).get("notes") or []]
