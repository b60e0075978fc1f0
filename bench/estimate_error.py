"""How far the run estimate is from the run's real duration, for the built-in examples.

Each example is run the way the window runs it by default (eager against inductor at the
default batch sizes, the default rounds, steps, blocks and accuracy check), twice, into a fresh
sessions folder: the first run is priced without history (the estimate a new user sees), the
second from the first run's session (what every later run sees); both with the inspection's
step probe, as the window has it. For each run it prints the
estimate, the actual wall time and their ratio, and where the difference comes from: the
priced seconds of each kind of unit (worker start-up, first steps with their compile, blocks,
accuracy checks, exits) against the seconds the event log shows for them, and the estimate the
same prices give at the reference pace (the probe's pace reading left out).

`--busy N` keeps N busy loops running beside the whole benchmark: a machine slowed by
construction, steadily, which the probe's pace reading should see and the estimate follow.

Run: .venv/bin/python -m bench.estimate_error [--examples simple,mlp,...] [--json FILE] [--busy N]
About 2 to 4 minutes per example and run on a 2-core machine. Run nothing else meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tcprof.profiler.config import DEFAULT_BATCH_SIZES, ArmSpec, ModelSource, RunConfig, examples
from tcprof.profiler.folders.files import EVENTS_JSONL, iter_events
from tcprof.profiler.process.inspection import inspect_model
from tcprof.profiler.protocol import units
from tcprof.profiler.run.estimate import Estimate, Prices, estimate
from tcprof.profiler.run.estimate_history import history_prices
from tcprof.profiler.run.recorded import RecordedRun

EXAMPLES = ("simple", "mlp", "cnn", "tiny_gpt", "graph_break")
DONE_BY = {  # the event that completes each kind of unit (profiler/run/time_left.py)
    "loaded": "process",
    "first_step": "first_step",
    "block_done": "block",
    "accuracy": "accuracy",
    "worker_exit": "exit",
}


def window_config(example: str) -> RunConfig:
    """The window's defaults for a built-in example (app/setup: eager and inductor at the
    command line's batch sizes, DEFAULT_BATCH_SIZES; it ran 32 and 64 before 2026-12-06)."""
    return RunConfig(
        source=ModelSource(path=str(examples.example_path(example))),
        arms=(ArmSpec("eager"), ArmSpec("inductor")),
        batch_sizes=DEFAULT_BATCH_SIZES,
        stop_early=True,
    )


def actual_by_kind(folder: Path) -> dict[str, float]:
    """Seconds of the run spent on each kind of unit: the time from the previous completing
    event to each completing event, in the log's order (a run does one unit at a time but for
    the workers' start-up, which run side by side and are counted once)."""
    out: dict[str, float] = {}
    last = 0.0
    for event in iter_events(folder / EVENTS_JSONL):
        kind = DONE_BY.get(str(event.get("type")))
        t = event.get("t")
        if kind is None or not isinstance(t, (int, float)):
            continue
        if kind == "first_step" and event.get("replicate") == "accuracy":
            continue
        out[kind] = out.get(kind, 0.0) + max(0.0, t - last)
        last = max(last, t)
    return out


def compile_figures(folder: Path) -> dict[str, Any]:
    """The compiled arm's measured cold and warm compile per batch size, for the guesses."""
    session = json.loads((folder / "session.json").read_text())
    out = {}
    for arm in session.get("arms") or []:
        if arm.get("backend") == "eager":
            continue
        for r in arm.get("results") or []:
            out[f"{arm['name']} bs {r['batch_size']}"] = {
                "cold_s": r.get("compile_cold_s"),
                "warm_s": r.get("compile_warm_s"),
                "median_ms": r.get("median_ms"),
            }
    return out


def prices_pace(probe: Any) -> float:
    return Prices().with_probe(probe).pace()


def priced_by_kind(est: Estimate) -> dict[str, float]:
    out: dict[str, float] = {}
    for unit in est.units:
        out[unit.kind] = out.get(unit.kind, 0.0) + unit.seconds
    return out


def range_ratio(est: Estimate, wall: float) -> float | None:
    """A run that stops when settled is priced as a range, "about" its first look and "at most"
    its last: 1.0 where the run's time lies inside it, else the nearer end over the actual."""
    if wall <= 0:
        return None
    most = est.most_seconds if est.most_seconds is not None else est.seconds
    if est.seconds <= wall <= most:
        return 1.0
    return round((est.seconds if wall < est.seconds else most) / wall, 3)


def run_once(config: RunConfig, sessions: Path, name: str) -> dict[str, Any]:
    """Priced as the window prices it: history, and the inspection's step probe."""
    probe = inspect_model(config.source, probe=True).get("probe")
    history = history_prices(config.to_dict(), root=sessions)  # read once, priced twice
    prices = history.with_probe(probe)
    est = estimate(config.to_dict(), prices)
    unpaced = (
        {k: v for k, v in probe.items() if k != "pace_ms"} if isinstance(probe, dict) else None
    )
    at_reference = estimate(config.to_dict(), history.with_probe(unpaced))
    folder = sessions / name
    recorded = RecordedRun(config, folder)
    began = time.monotonic()
    live = recorded.run().to_dict()
    wall = time.monotonic() - began
    recorded.save(live)
    return {
        "run": name,
        "history": prices.runs,
        "probe": probe,
        "estimate_s": round(est.seconds, 1),
        "actual_s": round(wall, 1),
        "ratio": round(est.seconds / wall, 3) if wall > 0 else None,
        "unpaced_s": round(at_reference.seconds, 1),  # the same prices at the reference pace
        "unpaced_range_ratio": range_ratio(at_reference, wall),
        "most_s": round(est.most_seconds, 1) if est.most_seconds is not None else None,
        "range_ratio": range_ratio(est, wall),
        "status": live.get("status"),
        "rounds": len(live.get("rounds") or []),
        "priced": {k: round(v, 1) for k, v in priced_by_kind(est).items()},
        "units": {k: sum(1 for u in est.units if u.kind == k) for k in DONE_BY.values()},
        "actual": {k: round(v, 1) for k, v in actual_by_kind(folder).items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", default=",".join(EXAMPLES))
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--runs", type=int, default=2, help="1: only the run without history")
    parser.add_argument("--keep", help="run into this sessions folder and keep it")
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside it (a slow machine)")
    args = parser.parse_args(argv)
    busy = [busy_loop() for _ in range(args.busy)]
    try:
        results = measure(args)
    finally:
        for pid in busy:
            os.kill(pid, signal.SIGKILL)
    ratios = [r["range_ratio"] for r in results if r["range_ratio"]]
    if ratios:
        worst = max(ratios, key=lambda r: max(r, 1 / r))
        print(f"worst range/actual {worst:.2f} (target: within 1/1.5 to 1.5)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def busy_loop() -> int:
    """A busy loop that is not this process's descendant (a shell starts it and exits), so a
    run's quiet room, which waits while the engine's descendants compute, sees a machine made
    slower by another program, not its own engine busy; its pid, to end it."""
    started = subprocess.run(
        ["sh", "-c", f"'{sys.executable}' -c 'while True: pass' >/dev/null 2>&1 & echo $!"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(started.stdout.strip())


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    results = []
    with tempfile.TemporaryDirectory(prefix="tcprof-estimate-") as tmp:
        sessions = Path(args.keep or tmp)
        sessions.mkdir(parents=True, exist_ok=True)
        for example in [e.strip() for e in args.examples.split(",") if e.strip()]:
            config = window_config(example)
            for n in range(1, args.runs + 1):
                row = {"example": example, **run_once(config, sessions, f"{example}-{n}")}
                row["compile"] = compile_figures(sessions / f"{example}-{n}")
                results.append(row)
                print(
                    f"{example:12} run {n} ({'history' if row['history'] else 'no history'}): "
                    f"estimate {units.duration(row['estimate_s'])}, actual "
                    f"{units.duration(row['actual_s'])}, estimate/actual {row['ratio']:.2f}, "
                    f"at most {row['most_s']} s, range/actual {row['range_ratio']} "
                    f"[{row['status']}, {row['rounds']} rounds]",
                    flush=True,
                )
                print(f"    compiles: {row['compile']}")
                print(
                    f"    probe: {row['probe']} (pace x{prices_pace(row['probe']):.2f}; at the "
                    f"reference pace: estimate {row['unpaced_s']} s, range/actual "
                    f"{row['unpaced_range_ratio']})"
                )
                for kind in ("process", "first_step", "block", "accuracy", "exit"):
                    priced = row["priced"].get(kind, 0.0)
                    actual = row["actual"].get(kind, 0.0)
                    count = row["units"].get(kind, 0)
                    print(
                        f"    {kind:11} {count:4} units, priced {priced:7.1f} s, "
                        f"actual {actual:7.1f} s"
                    )
    return results


if __name__ == "__main__":
    raise SystemExit(main())
