"""Run the real CLI as a user would (its `main`, in this process) and read back what it wrote."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

from tcprof.profiler.folders.files import SESSION_JSON, read_session
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


def run_cli(args: list[str], out: Path) -> tuple[int, str, str, dict | None]:
    """`tcprof run ARGS --out OUT`: (exit code, stdout, stderr, the saved session or None).

    Tests run one round unless they ask for more (the default's rounds are for users). The
    command runs in this process, as `python -m tcprof.profiler` would run it (its `main`, its
    output captured), so every run of a test process shares one worker fork server instead of
    each importing torch for its own; a test that needs a real process (a signal, its own
    limits) starts one itself. Its time limit is the test's pytest-timeout."""
    if "--replicates" not in args:
        args = [*args, "--replicates", "1"]
    code, stdout, stderr = cli_in_process(["run", *args, "--out", str(out)])
    session_file = out / SESSION_JSON
    session = read_session(session_file) if session_file.exists() else None  # paths absolute
    return code, stdout, stderr, session


def cli_in_process(argv: list[str], cwd: Path | None = None) -> tuple[int, str, str]:
    """`tcprof ARGV` in this process, started in `cwd` (the working folder is put back after):
    (exit code, stdout, stderr), a usage error's exit 2 included (argparse raises SystemExit)."""
    from tcprof.profiler.cli.main import main

    stdout, stderr = io.StringIO(), io.StringIO()
    before = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        os.chdir(before)
    return code, stdout.getvalue(), stderr.getvalue()


def events(out: Path) -> list[dict]:
    return [
        json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()
    ]


def arm(session: dict, name: str) -> dict:
    return next(a for a in session["arms"] if a["name"] == name)
