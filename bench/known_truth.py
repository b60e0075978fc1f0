"""Does the default 95% interval keep its promise? tcprof's default run on a workload whose true
speedups are fixed by construction, many times, on a quiet machine and under a neighbour's load.

The workload (bench/models/known_truth_model.py): a compiled arm whose backend runs the graph
dynamo captured twice (`repeat2`: forward and backward do twice eager's work, the training is
eager's), with both A/A twins (`--control both`: eager-control, repeat2-control), whose truth is
1.00 exactly. Nearly all of a step is in the repeated graph; what is not is measured in one
process (`truth`): eager, repeat1 and repeat2 training steps taking turns, a block of steps each
(its first steps left out, as tcprof leaves out a block's first), independently of tcprof's
multi-process method. A short truth measurement follows every run (the neighbour paused), and
the truth of a condition is the mean over all of them, so it is taken over the same hours, and
the same states of the machine, as the runs it judges. repeat1 against eager (r1) is dynamo's
own cost: were the work outside the graph free, the truth would be r1 / (1 + r1), a cross-check
the summary prints beside the measured truth.

Then `--runs` default runs of `tcprof run` (the default seed first, then seeds 1, 2, ...), each
with the defaults (rounds, steps, blocks, the accuracy check off to save time). Under `--load`,
the benchmark itself starts a busy process on one core and switches it on and off (SIGSTOP /
SIGCONT), each stretch drawn at random with a mean of `--period` seconds (`--switching fixed`:
every `--period` seconds, which locks onto tcprof's schedule: see `Neighbour`), so the machine's
state changes between and within rounds. Each run keeps its measured blocks (arm, round, when,
how busy the rest of the machine was, the block's median step) to show where the load landed.
It prints, per condition:

  * coverage: how many 95% intervals contain the truth (repeat2 against eager, and each twin);
  * bias: the geometric mean of point / truth over the runs, with its 95% t interval;
  * width: the median half-width of the interval;
  * position: each arm's process median by its position in the round, against its run median;
  * load: the share of each arm's blocks that ran beside the busy neighbour.

Run: .venv/bin/python -m bench.known_truth [--runs 30] [--load off,on] [--period 3]
Two to three minutes per run on a 2-core machine. Run nothing else meanwhile.

Thirty runs per condition take hours, more than one quiet stretch of a shared machine gives:
`--record FILE` appends each run (its condition, seed, figures, the truth measured after it,
the workload, the commit) to FILE as one JSON line as soon as it ends, `--first-seed N` goes on
where earlier runs stopped, and `--summarise FILE` prints the figures over every run recorded
there, per workload, condition and way of switching (bench/known_truth_summary.py), each run
judged against the truth of its own sitting. Runs of the earlier wide workload (no `workload` field) are
judged against the truth measured before them, as they were recorded.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.known_truth_summary import (
    TWINS,
    pooled_line,
    pooled_truth,
    summarise,
    summarise_recorded,
)
from tcprof.profiler.analysis import stopping

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "bench" / "models" / "known_truth_model.py"
BATCH = 512
WORKLOAD = "tanh-8x128"  # recorded with each run: DEPTH x WIDTH of known_truth_model
ARMS = "eager, repeat2"


# -- the truth, in one process ------------------------------------------------------------------
class TruthProbe:
    """repeat2 against eager (and repeat1 against eager: dynamo's own fixed cost) within one
    process, so the machine's drift between processes cannot move it. The models are built and
    compiled once; each `measure` lets the variants take turns (eager, repeat1, repeat2, then the
    reverse order), `block` steps each turn, the first `discard` of a turn left out, and returns
    the mean and sd of the turns' log ratios of block medians.

    Blocks of steps with their first steps left out, as tcprof's blocks run, matter: single
    steps start with the caches the other variants left, a cost a process that runs one variant
    never pays, and single steps read the earlier workload's truth 7% high."""

    def __init__(self, block: int = 10, discard: int = 2) -> None:
        import torch

        sys.path.insert(0, str(MODEL.parent))
        import known_truth_model as ktm  # registers repeat1..3

        self.block, self.discard = block, discard
        torch.manual_seed(0)
        self.variants: dict[str, Any] = {}
        for name in ("eager", "repeat1", "repeat2"):
            model = ktm.KnownTruth()
            if name != "eager":
                model.compile(backend=ktm.repeat_backend(int(name[-1])))
            self.variants[name] = (model, torch.optim.SGD(model.parameters(), lr=0.01))
        self.x, self.y = ktm.make_batch(BATCH, torch.device("cpu"))
        self._loss = torch.nn.functional.mse_loss
        for model, opt in self.variants.values():  # compile and warm up
            for _ in range(10):
                self._step(model, opt)

    def _step(self, model: Any, opt: Any) -> int:
        t0 = time.perf_counter_ns()
        loss = self._loss(model(self.x), self.y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return time.perf_counter_ns() - t0

    def measure(self, turns: int) -> dict[str, float]:
        times: dict[str, list[float]] = {name: [] for name in self.variants}
        names = list(self.variants)
        for i in range(turns):
            for name in names if i % 2 == 0 else names[::-1]:
                turn = [self._step(*self.variants[name]) for _ in range(self.block)]
                times[name].append(statistics.median(turn[self.discard :]))
        out: dict[str, float] = {"turns": turns}
        for name in ("repeat1", "repeat2"):
            logs = [math.log(e / a) for e, a in zip(times["eager"], times[name], strict=True)]
            out[f"{name}_log_mean"] = statistics.fmean(logs)
            out[f"{name}_log_sd"] = statistics.stdev(logs)
        out["eager_ms"] = statistics.median(times["eager"]) / 1e6
        out["repeat2_ms"] = statistics.median(times["repeat2"]) / 1e6
        return out


def truth_line(t: dict[str, float]) -> str:
    """One measurement, as its ratios with their 95% intervals."""
    parts = []
    for name in ("repeat2", "repeat1"):
        mean, sd = t[f"{name}_log_mean"], t[f"{name}_log_sd"]
        half = 1.96 * sd / math.sqrt(t["turns"])
        parts.append(f"{name} {math.exp(mean):.4f} ±{(math.exp(half) - 1) * 100:.2f}%")
    return (
        f"{', '.join(parts)} against eager ({int(t['turns'])} turns; eager "
        f"{t['eager_ms']:.2f} ms, repeat2 {t['repeat2_ms']:.2f} ms a step)"
    )


# -- a neighbour that comes and goes -------------------------------------------------------------
class Neighbour:
    """A busy process on one core, switched on and off; `paused()` holds it off (while the truth
    is measured).

    `switching="random"` (the default) draws each on and off stretch from an exponential
    distribution of mean `period` seconds (at least a tenth of a second), so that at any moment a
    switch is as likely as at any other. A fixed period (`switching="fixed"`) locks onto tcprof's
    schedule, whose timing repeats from run to run to a fraction of a second: in ten runs of
    96 s (sixteen periods of 6 s) the neighbour landed on the same blocks in six and seven runs
    of ten, most of them repeat2's, where a neighbour that keeps no time would land on any
    block in about one run of ten. Such a load is not noise the rounds can average out but the
    same push in every run (docs/benchmarks.md)."""

    def __init__(self, period: float, switching: str = "random", seed: int = 0) -> None:
        self.period, self.switching = period, switching
        self._rng = random.Random(seed)
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._held = False
        self._thread = threading.Thread(target=self._toggle, daemon=True)
        self._thread.start()

    def _stretch(self) -> float:
        if self.switching == "fixed":
            return self.period
        return max(0.1, self._rng.expovariate(1.0 / self.period))

    def _toggle(self) -> None:
        on = True
        while not self._stop.wait(self._stretch()):
            on = not on
            with self._lock:
                if not self._held:
                    os.kill(self.proc.pid, signal.SIGCONT if on else signal.SIGSTOP)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        with self._lock:
            self._held = True
            os.kill(self.proc.pid, signal.SIGSTOP)
        try:
            yield
        finally:
            with self._lock:
                self._held = False
                os.kill(self.proc.pid, signal.SIGCONT)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        os.kill(self.proc.pid, signal.SIGCONT)
        self.proc.kill()
        self.proc.wait()


# -- tcprof's default run ------------------------------------------------------------------------
def tcprof_run(seed: int, extra: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tcprof-known-truth-") as out:
        cmd = [sys.executable, "-m", "tcprof.profiler", "run", str(MODEL), "--arms", ARMS]
        cmd += ["--batch-sizes", str(BATCH), "--control", "both", "--no-accuracy"]
        cmd += ["--seed", str(seed), "--quiet", "--out", out, *extra]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"tcprof run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        session = json.loads((Path(out) / "session.json").read_text())
        session["_blocks"] = block_table(Path(out), session)
        session["_pooled"] = pooled_table(Path(out), session)
        return session


def block_table(folder: Path, session: dict[str, Any]) -> list[dict[str, Any]]:
    """Every measured block: its arm, round, block number, when it ended (s into the run), how
    busy the rest of the machine was while it ran (`busy_elsewhere`, cores: the neighbour's
    state, as the worker read it) and the median of its steps (ms), from `events.jsonl` and
    `steps.csv`. The benchmark keeps them to see where the load landed."""
    import csv

    names = {a["index"]: a["name"] for a in session["arms"]}
    steps: dict[tuple[str, int, int], list[float]] = {}
    with (folder / "steps.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            key = (row["arm"], int(row["replicate"]), int(row["block"]))
            steps.setdefault(key, []).append(float(row["ms"]))
    blocks = []
    for text in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(text)
        if event.get("type") != "block_done" or not isinstance(event.get("replicate"), int):
            continue
        key = (names[event["arm"]], event["replicate"], event["block"])
        if key in steps:
            blocks.append(
                {
                    "arm": key[0],
                    "round": key[1],
                    "block": key[2],
                    "t": event["t"],
                    "busy": event["busy_elsewhere"],
                    "ms": statistics.median(steps[key]),
                }
            )
    return blocks


def pooled_table(folder: Path, session: dict[str, Any]) -> list[dict[str, Any]]:
    """Each process's median over all its measured steps pooled (arm, round, ms): the figure
    tcprof took before a process's figure became the median of its blocks' medians, kept so
    the two can be compared on the same fresh runs (bench/estimator_reanalysis.py)."""
    import csv

    del session  # the arm names are already in steps.csv
    steps: dict[tuple[str, int], list[float]] = {}
    with (folder / "steps.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            if row["replicate"].lstrip("-").isdigit() and row["block"].isdigit():
                steps.setdefault((row["arm"], int(row["replicate"])), []).append(float(row["ms"]))
    return [
        {"arm": arm, "round": rnd, "ms": statistics.median(ms)}
        for (arm, rnd), ms in sorted(steps.items())
    ]


def figures(session: dict[str, Any]) -> dict[str, Any]:
    """repeat2's speedup and interval, each twin's, and what a test over runs needs of
    repeat2's: the rounds its interval rests on, that interval's level (the stopping rule's,
    not 95%), the standard error of its mean log ratio and its degrees of freedom
    (bench/repeat_runs.py --known-truth)."""
    rows = {a["name"]: a["results"][0] for a in session["arms"]}
    out: dict[str, Any] = {"repeat2": (rows["repeat2"]["speedup"], rows["repeat2"]["speedup_ci"])}
    rounds = rows["repeat2"].get("speedup_rounds")
    out["rounds"] = rounds
    out["level"] = stopping.level_of(session.get("config") or {})  # speedup_ci's level
    out["se"] = rows["repeat2"].get("speedup_se_log")
    out["df"] = rounds - 1 if isinstance(rounds, int) else None
    for twin in TWINS:
        out[twin] = (rows[twin]["aa_speedup"], rows[twin]["aa_ci"])
    # position: each arm's process median in each round against that arm's median over rounds
    order = [r["order"] for r in session["rounds"] if isinstance(r.get("replicate"), int)]
    positions: dict[int, list[float]] = {}
    for name, row in rows.items():
        medians = row["process_medians_ms"]
        centre = statistics.median(m for m in medians if m)
        for r, names in enumerate(order):
            if r < len(medians) and medians[r] and name in names:
                positions.setdefault(names.index(name), []).append(math.log(medians[r] / centre))
    out["positions"] = positions
    out["blocks"] = session.get("_blocks", [])
    out["pooled"] = session.get("_pooled", [])
    return out


def record(
    path: Path,
    condition: str,
    load: dict[str, Any],
    seed: int,
    run: dict[str, Any],
    truth: dict[str, float],
) -> None:
    """One run, appended as a JSON line the moment it ends (a cut-off session keeps the rest),
    with the truth measured just after it."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    line = {
        "workload": WORKLOAD,
        "condition": condition,
        **(load if condition == "on" else {"period_s": None}),
        "seed": seed,
        "truth_after": truth,
        "commit": commit,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **{k: v for k, v in run.items() if k != "positions"},
        "positions": {str(k): v for k, v in run["positions"].items()},
    }
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--load", default="off,on", help="off, on, or off,on")
    parser.add_argument("--period", type=float, default=3.0, help="the neighbour's on/off, s")
    parser.add_argument(
        "--switching",
        choices=("random", "fixed"),
        default="random",
        help="the neighbour's stretches: exponential of mean --period (random), or --period",
    )
    parser.add_argument("--truth-first", type=int, default=200, help="turns before the runs")
    parser.add_argument("--truth-turns", type=int, default=60, help="turns after each run")
    parser.add_argument("--truth-block", type=int, default=10, help="steps per turn")
    parser.add_argument("--truth-discard", type=int, default=2, help="first steps left out")
    parser.add_argument("--record", help="append each run to this JSON-lines file")
    parser.add_argument("--first-seed", type=int, default=0, help="the first run's seed")
    parser.add_argument("--summarise", help="print the figures of the runs recorded in FILE")
    parser.add_argument("extra", nargs="*", help="more `tcprof run` options (after --)")
    args = parser.parse_args()
    t0 = time.time()
    if args.summarise:
        print("\n".join(summarise_recorded(Path(args.summarise))))
        return
    probe = TruthProbe(args.truth_block, args.truth_discard)
    print(f"truth before the runs: {truth_line(probe.measure(args.truth_first))}", flush=True)
    report: list[str] = []
    for condition in args.load.split(","):
        neighbour = (
            Neighbour(args.period, args.switching, args.first_seed) if condition == "on" else None
        )
        runs, truths = [], []
        try:
            for i in range(args.first_seed, args.first_seed + args.runs):
                session = tcprof_run(i, args.extra)
                runs.append(figures(session))
                with neighbour.paused() if neighbour else contextlib.nullcontext():
                    truths.append(probe.measure(args.truth_turns))
                f = runs[-1]
                if args.record:
                    load = {"period_s": args.period, "switching": args.switching}
                    record(Path(args.record), condition, load, i, f, truths[-1])
                print(
                    f"[load {condition}] run {i - args.first_seed + 1}/{args.runs} (seed {i}): "
                    "repeat2 "
                    f"{f['repeat2'][0]:.3f} [{f['repeat2'][1][0]:.3f}-{f['repeat2'][1][1]:.3f}], "
                    + ", ".join(
                        f"{t} {f[t][0]:.3f} [{f[t][1][0]:.3f}-{f[t][1][1]:.3f}]" for t in TWINS
                    )
                    + f"; truth after it: {truth_line(truths[-1])}",
                    flush=True,
                )
        finally:
            if neighbour:
                neighbour.close()
        label = (
            "quiet machine"
            if condition == "off"
            else f"a neighbour on/off every {args.period:g} s ({args.switching})"
        )
        truth = pooled_truth(truths)
        report += [f"\n{label}: {pooled_line(truth)}"]
        report += summarise(label, runs, truth["repeat2"])
    report.append(f"took {(time.time() - t0) / 60:.1f} min")
    print("\n".join(report))


if __name__ == "__main__":
    main()
