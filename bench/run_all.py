"""Run every benchmark in bench/ one after another (`make bench`); each prints its figures.

Record the figures in docs/benchmarks.md. Benchmarks are never tests: machines here are shared
and noisy, so run them on a quiet machine and compare ratios measured side by side."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    scripts = sorted(
        p.stem for p in (ROOT / "bench").glob("*.py") if p.stem not in ("__init__", "run_all")
    )
    failed = []
    for name in scripts:
        print(f"\n== bench.{name}", flush=True)
        if subprocess.run([sys.executable, "-m", f"bench.{name}"], cwd=ROOT).returncode != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
