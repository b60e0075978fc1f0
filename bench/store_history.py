"""`tcprof history model.py --store URI` for a user whose own sessions folder is empty: N
synthetic sessions of one series (tests/support/history_series.py: a known speedup of 1.25x
that falls at the middle session) logged to a real `mlflow server` (SQLite, local artifacts) on
127.0.0.1, then read back: the first read downloads every session into the cache, the next ones
download nothing. Checks the truth by construction survives the round trip: exactly one change
flagged, at the first slowed session's commit. With `--baseline DIR` (another checkout, e.g. the
code before a change) its cached reads are timed too, interleaved with this checkout's, against
the same store and cache: a loaded machine's drift falls on both alike.

Run: .venv/bin/python -m bench.store_history [--sessions 60] [--repeat 3] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tcprof.profiler.trackers import log_session
from tests.support.history_series import write_series
from tests.support.mlflow_server import MlflowServer


def _time(uri: str, home: Path, code: str | None = None) -> tuple[float, str]:
    """One `tcprof history` in a fresh interpreter: this checkout's code, or that of `code`."""
    command = [sys.executable, "-m", "tcprof.profiler", "history", "model.py", "--store", uri]
    env = {**os.environ, "TCPROF_HOME": str(home), "MLFLOW_EXPERIMENT_NAME": "bench"}
    if code is not None:  # `-m` puts the working folder first on the path: run it from there
        env["PYTHONPATH"] = code
    start = time.perf_counter()
    done = subprocess.run(
        [*command, "--html", str(home / "h.html")],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=code,
    )
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", help="another checkout whose cached reads are timed too")
    args = parser.parse_args()
    before: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "server").mkdir()
        server = MlflowServer(root / "server")
        try:
            started = time.perf_counter()
            server.wait_ready()
            boot = time.perf_counter() - started
            slowdowns = [1.0 if i < args.sessions // 2 else 1.2 for i in range(args.sessions)]
            commits = write_series(root / "theirs", slowdowns)
            started = time.perf_counter()
            for folder in sorted((root / "theirs").iterdir()):
                warnings = log_session(folder, [f"mlflow:{server.uri}"], mlflow_experiment="bench")
                assert warnings == [], warnings
            logging = (time.perf_counter() - started) / args.sessions
            home = root / "reader"  # an empty sessions folder of its own
            cold, out = _time(server.uri, home)
            flagged = [line for line in out.splitlines() if line.startswith("changed:")]
            assert len(flagged) == 1 and f"at {commits[args.sessions // 2]} " in flagged[0], out
            assert f"({args.sessions} sessions)" in out, out
            warm = []
            for _ in range(args.repeat):  # interleaved with the baseline's, when given
                if args.baseline:
                    before.append(_time(server.uri, home, args.baseline)[0])
                warm.append(_time(server.uri, home)[0])
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import mlflow.tracking"], check=True)
            floor = time.perf_counter() - started
        finally:
            server.stop()
    print(f"server ready in {boot:.1f} s; logging a session: {logging:.2f} s each")
    print(f"{args.sessions} sessions in the store; flagged: {flagged[0]}")
    print(f"first read (every session downloaded): {cold:.2f} s")
    print(f"cached: median {statistics.median(warm):.2f} s, max {max(warm):.2f} s")
    if before:
        print(
            f"cached, {args.baseline} interleaved: median {statistics.median(before):.2f} s, "
            f"max {max(before):.2f} s"
        )
    print(f"of which a fresh interpreter importing MLflow's client: {floor:.2f} s")


if __name__ == "__main__":
    main()
