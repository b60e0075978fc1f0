"""`import tcprof` in a fresh interpreter (target < 0.3 s), and `import tcprof` then the first
use of an API name (`tcprof.Session`: it imports the engine, still without torch or Qt): the median of fresh
interpreters, each timed from inside (the interpreter's own start-up is not counted).

Run: .venv/bin/python -m bench.api_import [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

PROBE = """
import json, sys, time
t0 = time.perf_counter()
import tcprof
t1 = time.perf_counter()
tcprof.Session
t2 = time.perf_counter()
heavy = [m for m in ("torch", "PySide6", "scipy") if m in sys.modules]
print(json.dumps({"import_s": t1 - t0, "first_use_s": t2 - t0, "heavy": heavy}))
"""


def measure(runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
        )
        samples.append(json.loads(out.stdout))
    heavy = sorted({m for s in samples for m in s["heavy"]})
    if heavy:
        raise SystemExit(f"import tcprof loaded {', '.join(heavy)}")
    return {
        "import_s": statistics.median(s["import_s"] for s in samples),
        "first_use_s": statistics.median(s["first_use_s"] for s in samples),
        "worst_import_s": max(s["import_s"] for s in samples),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    figures = measure(runs)
    print(
        f"import tcprof: median {figures['import_s'] * 1000:.1f} ms "
        f"(worst {figures['worst_import_s'] * 1000:.1f} ms) over {runs} fresh interpreters; "
        f"import + first tcprof.Session: median {figures['first_use_s'] * 1000:.0f} ms; "
        "neither torch nor Qt nor scipy loaded"
    )
    return 0 if figures["import_s"] < 0.3 else 1


if __name__ == "__main__":
    sys.exit(main())
