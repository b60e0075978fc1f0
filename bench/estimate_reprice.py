"""Price recorded runs again with the estimate's current constants: bench/estimate_error.py's
JSON keeps each run's probe, config and wall time, and the runs do not depend on the prices, so
a change of the guesses can be judged on runs already made before it is judged on new ones.

Run: .venv/bin/python -m bench.estimate_reprice FILE.json [FILE.json ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.estimate_error import range_ratio, window_config
from tcprof.profiler.run.estimate import Prices, estimate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.files:
        for row in json.loads(path.read_text()):
            if row.get("history"):
                continue  # priced from the first run's session, not from the guesses
            prices = Prices().with_probe(row.get("probe"))
            est = estimate(window_config(row["example"]).to_dict(), prices)
            most = est.most_seconds if est.most_seconds is not None else est.seconds
            print(
                f"{path.name:28} {row['example']:12} pace x{prices.pace():.2f} "
                f"estimate {est.seconds:5.1f}-{most:5.1f} s, actual {row['actual_s']:5.1f} s, "
                f"range/actual {range_ratio(est, row['actual_s'])}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
