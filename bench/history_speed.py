"""How fast `tcprof history` answers over 200 sessions in the local sessions folder.

Writes N synthetic sessions of one series (tests/support/history_series.py: known speedups,
one commit each), each session.json padded with `samples` to --pad-kb (real ones reach
megabytes), then times `python -m tcprof.profiler history model.py --sessions DIR` as a user
runs it (a fresh interpreter each time): once with no index (every session.json read), then
--repeat times with the index in place. Target (issue 41): under 2 s with the index.

Run: .venv/bin/python -m bench.history_speed [--sessions 200] [--pad-kb 256]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tcprof.profiler.folders.index import INDEX_JSON
from tests.support.history_series import write_series


def _pad(folder: Path, kb: int) -> None:
    """Each arm's samples made long (a real session's steps), to about `kb` in all."""
    for session in folder.glob("*/session.json"):
        data = json.loads(session.read_text())
        n = max(4, kb * 1024 // (8 * max(1, len(data["samples"]))))
        for sample in data["samples"]:
            sample["ms"] = (sample["ms"] * n)[:n]
            sample["blocks"] = [[0, 0, n]]
        session.write_text(json.dumps(data))


def _time(folder: Path) -> tuple[float, str]:
    command = [sys.executable, "-m", "tcprof.profiler", "history", "model.py"]
    start = time.perf_counter()
    done = subprocess.run(
        [*command, "--sessions", str(folder), "--html", str(folder / "h.html")],
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--pad-kb", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        slowdowns = [1.0 if i < args.sessions // 2 else 1.2 for i in range(args.sessions)]
        commits = write_series(folder, slowdowns)
        _pad(folder, args.pad_kb)
        cold, out = _time(folder)
        flagged = [line for line in out.splitlines() if line.startswith("changed:")]
        # the truth by construction: one change, at the first slowed session's commit
        assert len(flagged) == 1 and f"at {commits[args.sessions // 2]} " in flagged[0], out
        assert f"({args.sessions} sessions)" in out, out
        warm = [_time(folder)[0] for _ in range(args.repeat)]
        size = (folder / INDEX_JSON).stat().st_size
    print(f"{args.sessions} sessions of ~{args.pad_kb} KB each; flagged: {flagged[0]}")
    print(f"no index (first run, builds it): {cold:.2f} s")
    print(
        f"with the index ({size / 1024:.0f} KB): median {statistics.median(warm):.2f} s, "
        f"max {max(warm):.2f} s over {args.repeat} runs"
    )


if __name__ == "__main__":
    main()
