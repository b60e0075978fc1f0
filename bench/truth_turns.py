"""Does the known truth depend on how long each variant's turn is? bench/known_truth.py's truth
is measured in one process where eager, repeat1 and repeat2 take turns of `--truth-block` steps
(10), the first 2 left out; tcprof's own blocks are about ten times longer. If switching
variants costs a step's caches more than the left-out steps absorb, short turns read the
shorter step (eager) slower by a larger share, and the truth reads high against any
multi-process method. This measures the truth with short and long turns alternately, in one
process, on the same machine state, and prints each with the ratio of their means.

Run: .venv/bin/python -m bench.truth_turns [--pairs 4] [--short 10 2] [--long 60 10]
About 2 minutes on a 2-core machine. Run nothing else meanwhile.
"""

from __future__ import annotations

import argparse
import math
import statistics

from bench.known_truth import TruthProbe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--short", type=int, nargs=2, default=(10, 2), help="steps, left out")
    parser.add_argument("--long", type=int, nargs=2, default=(60, 10), help="steps, left out")
    parser.add_argument("--steps", type=int, default=1800, help="steps per variant a measure")
    args = parser.parse_args()
    probe = TruthProbe(*args.short)  # builds, compiles and warms the three variants once
    logs: dict[str, list[float]] = {"short": [], "long": []}
    for i in range(args.pairs):
        for name, (block, discard) in (("short", args.short), ("long", args.long)):
            probe.block, probe.discard = block, discard
            out = probe.measure(max(2, args.steps // block))
            logs[name].append(out["repeat2_log_mean"])
            print(
                f"pair {i + 1} {name:5s} ({block} steps, {discard} left out): repeat2 "
                f"{math.exp(out['repeat2_log_mean']):.4f} ±{100 * out['repeat2_log_sd']:.1f}% "
                f"a turn; eager {out['eager_ms']:.2f} ms, repeat2 {out['repeat2_ms']:.2f} ms",
                flush=True,
            )
    diffs = [s - lo for s, lo in zip(logs["short"], logs["long"], strict=True)]
    mean = statistics.fmean(diffs)
    sd = statistics.stdev(diffs) if len(diffs) > 1 else float("nan")
    print(
        f"short turns against long: {100 * math.expm1(mean):+.2f}% "
        f"(sd of the pairs {100 * sd:.2f}%, {len(diffs)} pairs)"
    )


if __name__ == "__main__":
    main()
