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
the benchmark itself starts a busy process on one core and switches it on and off every
`--period` seconds (SIGSTOP / SIGCONT), so the machine's state changes between and within rounds.
It prints, per condition:

  * coverage: how many 95% intervals contain the truth (repeat2 against eager, and each twin);
  * bias: the geometric mean of point / truth over the runs, with its 95% t interval;
  * width: the median half-width of the interval;
  * position: each arm's process median by its position in the round, against its run median.

Run: .venv/bin/python -m bench.known_truth [--runs 30] [--load off,on] [--period 3]
About three minutes per run on a 2-core machine. Run nothing else meanwhile.

Thirty runs per condition take hours, more than one quiet stretch of a shared machine gives:
`--record FILE` appends each run (its condition, seed, figures, the truth measured after it,
the workload, the commit) to FILE as one JSON line as soon as it ends, `--first-seed N` goes on
where earlier runs stopped, and `--summarise FILE` prints the figures over every run recorded
there, per workload and condition. Runs of the earlier wide workload (no `workload` field) are
judged against the truth measured before them, as they were recorded.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
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

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "bench" / "models" / "known_truth_model.py"
BATCH = 512
WORKLOAD = "tanh-8x128"  # recorded with each run: DEPTH x WIDTH of known_truth_model
ARMS = "eager, repeat2"
TWINS = {"eager-control": "eager", "repeat2-control": "repeat2"}


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


def pooled_truth(measurements: list[dict[str, float]]) -> dict[str, float]:
    """The truth over many short measurements: the turn-weighted mean log ratio, its 95% interval
    from the spread of the measurements' own means (drift between them counts), and what it
    would be were the work outside the graph free (r1 / (1 + r1))."""
    out: dict[str, float] = {}
    n = [m["turns"] for m in measurements]
    for name in ("repeat1", "repeat2"):
        means = [m[f"{name}_log_mean"] for m in measurements]
        centre = sum(w * x for w, x in zip(n, means, strict=True)) / sum(n)
        if len(means) > 1:
            half = _t975(len(means) - 1) * statistics.stdev(means) / math.sqrt(len(means))
        else:
            half = 1.96 * measurements[0][f"{name}_log_sd"] / math.sqrt(n[0])
        out[name], out[f"{name}_half_pct"] = math.exp(centre), (math.exp(half) - 1) * 100
    out["graph_only"] = out["repeat1"] / (1 + out["repeat1"])
    out["measurements"], out["turns"] = len(measurements), sum(n)
    return out


# -- a neighbour that comes and goes -------------------------------------------------------------
class Neighbour:
    """A busy process on one core, switched on and off every `period` seconds; `paused()` holds
    it off (while the truth is measured)."""

    def __init__(self, period: float) -> None:
        self.period = period
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._held = False
        self._thread = threading.Thread(target=self._toggle, daemon=True)
        self._thread.start()

    def _toggle(self) -> None:
        on = True
        while not self._stop.wait(self.period):
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
        return json.loads((Path(out) / "session.json").read_text())


def figures(session: dict[str, Any]) -> dict[str, Any]:
    rows = {a["name"]: a["results"][0] for a in session["arms"]}
    out: dict[str, Any] = {"repeat2": (rows["repeat2"]["speedup"], rows["repeat2"]["speedup_ci"])}
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
    return out


def summarise(label: str, runs: list[dict[str, Any]], truth: float) -> list[str]:
    lines = [f"\n## {label}: {len(runs)} runs"]
    for name, true in (("repeat2", truth), ("eager-control", 1.0), ("repeat2-control", 1.0)):
        pairs = [r[name] for r in runs if r[name][0] is not None]
        covered = sum(ci[0] <= true <= ci[1] for _, ci in pairs)
        logs = [math.log(point / true) for point, _ in pairs]
        mean = statistics.fmean(logs)
        half = (
            _t975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
            if len(logs) > 1
            else math.inf
        )
        widths = [(ci[1] / ci[0]) ** 0.5 - 1 for _, ci in pairs]
        lines.append(
            f"{name:16s} truth {true:.4f}: coverage {covered}/{len(pairs)} "
            f"({covered / len(pairs):.0%}); bias {_pct(math.exp(mean))} "
            f"[{_pct(math.exp(mean - half))}, {_pct(math.exp(mean + half))}]; "
            f"median half-width {statistics.median(widths) * 100:.1f}%"
        )
    pooled: dict[int, list[float]] = {}
    for r in runs:
        for k, v in r["positions"].items():
            pooled.setdefault(k, []).extend(v)
    lines.append(
        "position effect (process median against the arm's run median): "
        + ", ".join(
            f"{k + 1}{'st' if k == 0 else 'nd' if k == 1 else 'rd' if k == 2 else 'th'} "
            f"{_pct(math.exp(statistics.fmean(v)))} (n={len(v)})"
            for k, v in sorted(pooled.items())
        )
    )
    return lines


def record(
    path: Path, condition: str, period: float, seed: int, run: dict[str, Any], truth: dict
) -> None:
    """One run, appended as a JSON line the moment it ends (a cut-off session keeps the rest),
    with the truth measured just after it."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    line = {
        "workload": WORKLOAD,
        "condition": condition,
        "period_s": period if condition == "on" else None,
        "seed": seed,
        "truth_after": truth,
        "commit": commit,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **{k: v for k, v in run.items() if k != "positions"},
        "positions": {str(k): v for k, v in run["positions"].items()},
    }
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def summarise_recorded(path: Path) -> list[str]:
    """The figures over every recorded run, per workload and condition. This workload's runs are
    judged against the truth pooled over the measurements that followed them; the earlier wide
    workload's against the truth measured before each (its `truth_blocks`). repeat2 is scaled
    by its truth so that `summarise` compares it with 1.0."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        if text.strip():
            line = json.loads(text)
            by.setdefault((line.get("workload", "wide-3x384"), line["condition"]), []).append(line)
    lines = []
    for (workload, condition), group in by.items():
        if "truth_after" in group[0]:
            truth = pooled_truth([line["truth_after"] for line in group])
            lines.append(f"\n{workload}, load {condition}: {pooled_line(truth)}")
            truths = [truth["repeat2"]] * len(group)
        else:
            truths = [line.get("truth_blocks") or line["truth"] for line in group]
        runs = []
        for line, t in zip(group, truths, strict=True):
            point, (lo, hi) = line["repeat2"]
            runs.append(
                {
                    "repeat2": (point / t, (lo / t, hi / t)),
                    **{twin: tuple(line[twin]) for twin in TWINS},
                    "positions": {int(k): v for k, v in line["positions"].items()},
                }
            )
        label = "quiet machine" if condition == "off" else "a neighbour switched on and off"
        lines += summarise(f"{workload}, {label} (repeat2 as a ratio to its truth)", runs, 1.0)
    return lines


def pooled_line(truth: dict[str, float]) -> str:
    return (
        f"truth pooled over {truth['measurements']} measurements ({truth['turns']} turns): "
        f"repeat2 {truth['repeat2']:.4f} ±{truth['repeat2_half_pct']:.2f}%, repeat1 "
        f"{truth['repeat1']:.4f} ±{truth['repeat1_half_pct']:.2f}% (graph work alone would give "
        f"{truth['graph_only']:.4f})"
    )


def _pct(ratio: float) -> str:
    return f"{(ratio - 1) * 100:+.1f}%"


def _t975(df: int) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.975))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--load", default="off,on", help="off, on, or off,on")
    parser.add_argument("--period", type=float, default=3.0, help="the neighbour's on/off, s")
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
        neighbour = Neighbour(args.period) if condition == "on" else None
        runs, truths = [], []
        try:
            for i in range(args.first_seed, args.first_seed + args.runs):
                session = tcprof_run(i, args.extra)
                runs.append(figures(session))
                with neighbour.paused() if neighbour else contextlib.nullcontext():
                    truths.append(probe.measure(args.truth_turns))
                f = runs[-1]
                if args.record:
                    record(Path(args.record), condition, args.period, i, f, truths[-1])
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
            "quiet machine" if condition == "off" else f"a neighbour on/off every {args.period:g} s"
        )
        truth = pooled_truth(truths)
        report += [f"\n{label}: {pooled_line(truth)}"]
        report += summarise(label, runs, truth["repeat2"])
    report.append(f"took {(time.time() - t0) / 60:.1f} min")
    print("\n".join(report))


if __name__ == "__main__":
    main()
