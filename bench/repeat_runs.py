"""Do two runs of the same command agree? Repeated default runs of one command, their speedups
with the standard errors their own rounds gave, and Cochran's Q over them with its p-value
calibrated by simulation (analysis/heterogeneity.py) beside the plain chi-square one, which
assumes known errors and overstates.

Three ways in, each printing, per compared arm and batch size: the points, Q on k - 1 degrees of
freedom, the calibrated p, the chi-square p, the median half-width and the median standard error
against the between-run sd.

  * `--sessions DIR [DIR ...]`: saved session folders (`--log FILE`: the wall time, load and
    commit of each, from lines "seed=I rc=R wall=S load_start=L load_end=L commit=C" as a shell
    loop writes them; `--record FILE`: their summary lines appended to FILE);
  * `--example X --runs N [--first-seed S] --record FILE [-- tcprof run options]`: runs
    `tcprof run --example X --seed i` N times, appending each run's line to FILE as soon as it
    ends (point, interval, level, rounds, se, df, why it stopped, wall time, load average,
    commit), so a cut-off sitting keeps what it measured;
  * `--summarise FILE`: the figures over every line recorded there;
  * `--known-truth FILE`: the same test over bench/known_truth.py's record of repeat2 against
    eager (4 arms: looks at 4 and 8 rounds). Records since this script keep rounds, level and
    df; older ones are read with the rounds their blocks show, or, with no blocks, under each
    of the plan's looks.

Run: .venv/bin/python -m bench.repeat_runs --summarise bench/results/mlp_default_runs.jsonl
(seconds); a sitting of ten default MLP runs is about 100 s a run on a quiet 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis import heterogeneity as het
from tcprof.profiler.analysis import stopping
from tcprof.profiler.model.session import SessionModel

ROOT = Path(__file__).resolve().parent.parent
LOG_LINE = re.compile(r"seed=(\d+) rc=(\d+) wall=([\d.]+) load_start=([\d.]+) load_end=([\d.]+)")
KNOWN_TRUTH_ARMS = 4  # eager, repeat2 and both controls


def session_lines(folder: Path, run: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One line per compared row (an arm against the baseline at a batch size) of the session
    saved in `folder`, with `run`'s wall time, load and commit where given."""
    doc = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    model = SessionModel.from_json(doc, folder)
    config = model.config
    stopped = (doc.get("stopping") or {}).get("reason")
    commit = model.provenance.short
    lines = []
    for row in model.rows:
        speedup = row.speedup
        if row.arm == model.baseline or row.control_of is not None or speedup is None:
            continue
        found = het.estimate_of(speedup)
        ci = speedup.interval
        lines.append(
            {
                "example": Path(str((config.get("source") or {}).get("path") or "?")).stem,
                "seed": config.get("seed"),
                "session": str(folder),
                "arm": row.arm,
                "batch_size": row.batch_size,
                "point": speedup.value,
                "interval": [ci.low, ci.high] if ci else None,
                "level": speedup.level,
                "rounds": speedup.rounds,
                "se": found.se if found else None,
                "df": found.df if found else None,
                "stopped": stopped,
                "commit": commit,
                "dirty": model.provenance.dirty,
                **(run or {}),
            }
        )
    return lines


def log_of(path: Path | None) -> dict[int, dict[str, Any]]:
    """Per seed, the wall time, load averages and commit a shell loop logged."""
    if path is None:
        return {}
    out = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        m = LOG_LINE.search(text)
        if m:
            commit = re.search(r"commit=(\S+)", text)
            out[int(m[1])] = {
                "rc": int(m[2]),
                "wall_s": float(m[3]),
                "load_start": float(m[4]),
                "load_end": float(m[5]),
                **({"run_commit": commit[1]} if commit else {}),
            }
    return out


def append(path: Path | None, lines: Iterable[dict[str, Any]]) -> None:
    if path is None:
        return
    with path.open("a", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def run_once(example: str, seed: int, extra: list[str], keep: Path | None) -> list[dict[str, Any]]:
    """`tcprof run --example X --seed i` with every default, timed; its lines."""
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="tcprof-repeat-") as tmp:
        out = keep / f"s{seed}" if keep else Path(tmp) / "session"
        cmd = [sys.executable, "-m", "tcprof.profiler", "run", "--example", example]
        cmd += ["--seed", str(seed), "--quiet", "--out", str(out), *extra]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"tcprof run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        run = {
            "wall_s": wall,
            "load_start": load_start,
            "load_end": os.getloadavg()[0],
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        return session_lines(out, run)


# -- bench/known_truth.py's record ---------------------------------------------------------------
def known_truth_lines(path: Path) -> list[list[dict[str, Any]]]:
    """repeat2 against eager in each recorded run, as summary lines: one reading when the record
    keeps its rounds (or its blocks show them), else one reading per planned look."""
    plan = stopping.make_plan(KNOWN_TRUTH_ARMS)
    records = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines() if t.strip()]
    readings: dict[int | None, list[dict[str, Any]]] = {}
    for rec in records:
        point, (low, high) = rec["repeat2"]
        rounds = rec.get("rounds") or _rounds_in_blocks(rec)
        level = rec.get("level") or plan.level
        for r in [rounds] if rounds else list(plan.looks):
            se = het.se_from_interval(low, high, level, r)
            line = {"example": rec.get("workload"), "seed": rec.get("seed"), "arm": "repeat2"}
            line |= {"point": point, "interval": [low, high], "level": level, "rounds": r}
            line |= {"se": se, "df": r - 1, "commit": rec.get("commit")}
            readings.setdefault(None if rounds else r, []).append(line)
    return list(readings.values())


def _rounds_in_blocks(record: dict[str, Any]) -> int | None:
    """The rounds repeat2 measured, from the blocks the record keeps (rounds 0..R-1)."""
    seen = {b["round"] for b in record.get("blocks") or [] if b.get("arm") == "repeat2"}
    return len(seen) if seen and seen == set(range(len(seen))) else None


# -- the figures ---------------------------------------------------------------------------------
def summary(lines: list[dict[str, Any]]) -> list[str]:
    """Per command, arm and batch size: the points, Q and its p-values, widths and spreads."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for line in lines:
        key = (line.get("example"), line.get("arm"), line.get("batch_size"))
        groups.setdefault(key, []).append(line)
    out = []
    for (example, arm, bs), group in groups.items():
        usable = [g for g in group if g.get("se") and g.get("df")]
        runs = [het.RunEstimate(math.log(g["point"]), g["se"], int(g["df"])) for g in usable]
        found = het.heterogeneity(runs)
        where = f"{example}, {arm}" + (f" bs {bs}" if bs is not None else "")
        out.append(f"{where}: {len(group)} runs, rounds {sorted({g['rounds'] for g in usable})}")
        out.append("  points: " + ", ".join(f"{g['point']:.3f}" for g in group))
        out.append(
            "  intervals: "
            + ", ".join(f"[{g['interval'][0]:.3f}-{g['interval'][1]:.3f}]" for g in usable)
        )
        levels = sorted({round(g["level"], 4) for g in usable if g.get("level")})
        out.append(f"  levels: {', '.join(f'{v:.2%}' for v in levels)}")
        if found is None:
            out.append("  fewer than two runs with a paired interval: no Q")
            continue
        halves = [half_width(g["interval"]) for g in usable]
        logs = [r.log_speedup for r in runs]
        out.append(
            f"  Q = {found.q:.1f} on {found.k - 1} df: calibrated p = {found.p:.3f} "
            f"({found.draws} simulated), chi-square p = {found.p_chi2:.2g}; "
            + ("agree at 5%" if found.agree() else "heterogeneous at 5%")
        )
        out.append(
            f"  pooled {found.pooled:.3f}; median half-width {statistics.median(halves):.1%}; "
            f"between-run sd {statistics.stdev(logs):.2%} against median se "
            f"{statistics.median(r.se for r in runs):.2%}"
        )
        walls = [g["wall_s"] for g in group if isinstance(g.get("wall_s"), (int, float))]
        loads = [g[k] for g in group for k in ("load_start", "load_end") if k in g]
        if walls:
            out.append(
                f"  wall {min(walls):.0f}-{max(walls):.0f} s (median {statistics.median(walls):.0f})"
                + (f", load average {min(loads):.2f}-{max(loads):.2f}" if loads else "")
            )
    return out


def half_width(interval: list[float]) -> float:
    """Half-width as a fraction of the centre (the paired t interval is symmetric in logs)."""
    return math.sqrt(interval[1] / interval[0]) - 1


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines() if t.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", nargs="+", type=Path, help="saved session folders")
    parser.add_argument("--log", type=Path, help="a shell loop's log of the sessions' runs")
    parser.add_argument("--example", help="run tcprof run --example X --runs times")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="keep the runs' folders here (s0, s1, ...)")
    parser.add_argument("--record", type=Path, help="append each run's line to this file")
    parser.add_argument("--summarise", type=Path, help="the figures over a recorded file")
    parser.add_argument("--known-truth", type=Path, help="bench/known_truth.py's record")
    parser.add_argument("extra", nargs="*", help="more `tcprof run` options (after --)")
    args = parser.parse_args()
    if args.summarise:
        print("\n".join(summary(read_lines(args.summarise))))
    elif args.known_truth:
        for reading in known_truth_lines(args.known_truth):
            print("\n".join(summary(reading)))
    elif args.sessions:
        logged = log_of(args.log)
        lines = []
        for folder in args.sessions:
            seed = json.loads((folder / "session.json").read_text())["config"].get("seed")
            lines += session_lines(folder, logged.get(seed))
        append(args.record, lines)
        print("\n".join(summary(lines)))
    elif args.example:
        lines = []
        for seed in range(args.first_seed, args.first_seed + args.runs):
            found = run_once(args.example, seed, args.extra, args.keep)
            append(args.record, found)
            lines += found
            for f in found:
                print(
                    f"seed {seed}: {f['arm']} bs {f['batch_size']} {f['point']:.3f} "
                    f"[{f['interval'][0]:.3f}-{f['interval'][1]:.3f}] at {f['level']:.2%}, "
                    f"{f['rounds']} rounds, {f['wall_s']:.0f} s",
                    flush=True,
                )
        print("\n".join(summary(lines)))
    else:
        parser.error("give --sessions, --example, --summarise or --known-truth")


if __name__ == "__main__":
    main()
