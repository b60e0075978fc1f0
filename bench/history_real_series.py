"""Does `tcprof history` flag a real graph break at the commit that added it, and only there? A
real series: a temporary git repository holding one model file, committed and profiled with
`tcprof run` (real worker processes) commit after commit, then `tcprof history` over the series.

The series (`plan`): `--before` commits that change nothing but a comment (the first one adds the
file), then one commit that adds `torch._dynamo.graph_break()` in the middle of the model's
forward, then `--after` commits that change nothing again. Exactly one change must be flagged, at
the graph break's commit, with "(torch unchanged)".

The construction, so the slowdown is known: the model (`model_source`) is DEPTH layers of
tanh(h @ W) sharing one WIDTH x WIDTH weight, and the compiled arm's backend `launch`, registered
by the file, runs each graph dynamo captured as it is (gradients and training stay eager's) and
then a fixed per-graph cost: a no-grad pass of LAUNCH = 2 DEPTH such layers on the graph's
activation, a stand-in for what a graph costs on its own (a launch, a host sync, a copy) that
scales with the machine's speed like the model's work. Counting a layer's forward as 1 and its
backward as 2 (two matmuls), eager's step is 3 DEPTH, the compiled step with one graph 5 DEPTH
(speedup 3/5), with two graphs after the break 7 DEPTH (3/7): the speedup falls by 1 - 5/7 = 29%,
a little less where the step's other costs (loss, optimizer, dynamo's guards) weigh. (A per-graph
cost of DEPTH layers, a 20% fall, was tried first: on the shared machine a block's median moved
by up to 4x with its neighbours' load, and four rounds' intervals were too wide to see it.) The truth is
measured in one process (`truth`): eager, the file before the break and after it, compiled with
`launch`, taking turns, a block of steps each (its first steps left out), as bench/known_truth.py
measures its own.

Each run is appended to `--record FILE` as one JSON line as soon as it ends (its step in the plan,
commit, seed, speedup with its interval, wall time, the load average before and after), then the
truth and the history's verdict. The repository and the sessions live in `--work DIR`, so
`--resume` goes on where an interrupted series stopped (the steps already recorded are skipped);
`--summarise FILE` prints the figures of a record.

Run: .venv/bin/python -m bench.history_real_series --record bench/results/history_real_series.jsonl
[--before 5] [--after 3] [--work DIR] [--resume] [-- more tcprof run options]
Two to three minutes a run on a 2-core machine under a load of 5 to 12 (four rounds, each arm
a fresh process); its figures: docs/benchmarks.md, docs/history.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODEL_FILE = "net.py"
BATCH = 256
ARMS = "eager,launch"
THREADS = 1  # two threads per worker on a shared 2-core machine wait on each other: noise
# many short blocks per round: a process's start costs more than its steps here
RUN_OPTIONS = ["--replicates", "4", "--steps", "600", "--blocks", "20", "--no-accuracy"]
RUN_OPTIONS += ["--threads", str(THREADS)]
BREAK_LINE = "torch._dynamo.graph_break()"


@dataclass(frozen=True)
class Commit:
    step: int
    message: str
    broken: bool  # the model's forward holds the graph break


def plan(before: int, after: int) -> list[Commit]:
    """`before` commits with no break (the first adds the file, the rest touch a comment), the
    break's commit, then `after` commits that touch a comment again."""
    steps = [Commit(0, "add the model", False)]
    steps += [Commit(i, f"a comment, revision {i}", False) for i in range(1, before)]
    steps.append(Commit(before, "a graph break in the middle of forward", True))
    steps += [
        Commit(before + 1 + i, f"a comment, revision {before + 1 + i}", True) for i in range(after)
    ]
    return steps


def model_source(revision: int, broken: bool) -> str:
    """The model file at one commit: only the revision comment and the break line differ."""
    brk = f"        {BREAK_LINE}\n" if broken else ""
    return f'''"""A stack of tanh(h @ W) layers and the backend `launch` (bench/history_real_series.py)."""
# revision {revision}

import math

import torch
import torch.nn as nn
from torch._dynamo import list_backends, register_backend

WIDTH = 128
DEPTH = 8
LAUNCH = 2 * DEPTH


def launch(gm, example_inputs):
    """The graph as captured, then a fixed per-graph cost: LAUNCH no-grad layers on its input."""
    weight = torch.randn(WIDTH, WIDTH) / math.sqrt(WIDTH)

    def run(*args):
        out = gm(*args)
        with torch.no_grad():
            h = max((a for a in args if isinstance(a, torch.Tensor)), key=lambda a: a.numel())
            for _ in range(LAUNCH):
                h = torch.tanh(h.detach() @ weight)
        return out

    return run


if "launch" not in list_backends(exclude_tags=()):
    register_backend(launch, name="launch")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(WIDTH, WIDTH) / math.sqrt(WIDTH))

    def forward(self, x):
        h = x
        for _ in range(DEPTH // 2):
            h = torch.tanh(h @ self.weight)
{brk}        for _ in range(DEPTH - DEPTH // 2):
            h = torch.tanh(h @ self.weight)
        return h.mean(dim=1, keepdim=True)


def make_batch(batch_size, device):
    return torch.randn(batch_size, WIDTH, device=device), torch.randn(batch_size, 1, device=device)
'''


# -- the repository ------------------------------------------------------------------------------
def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {out.stderr.strip()}")
    return out.stdout.strip()


def init_repo(repo: Path) -> None:
    """An empty repository whose author is the benchmark; bytecode caches kept out of it."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "tcprof bench")
    git(repo, "config", "user.email", "bench@tcprof.invalid")
    (repo / ".gitignore").write_text("__pycache__/\n", encoding="utf-8")


def commits_made(repo: Path) -> int:
    if not (repo / ".git").exists():
        return 0
    try:
        return int(git(repo, "rev-list", "--count", "HEAD"))
    except RuntimeError:  # no commit yet
        return 0


def make_commit(repo: Path, c: Commit) -> str:
    """Writes the model file for step `c` and commits it; its short hash."""
    (repo / MODEL_FILE).write_text(model_source(c.step, c.broken), encoding="utf-8")
    git(repo, "add", MODEL_FILE, ".gitignore")
    git(repo, "commit", "-q", "-m", c.message)
    return head(repo)


def head(repo: Path) -> str:
    """HEAD's short hash as a session's provenance writes it (its first seven digits)."""
    return git(repo, "rev-parse", "HEAD")[:7]


# -- the runs ------------------------------------------------------------------------------------
def tcprof_env(home: Path) -> dict[str, str]:
    return {**os.environ, "TCPROF_HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}


def tcprof_run(repo: Path, home: Path, seed: int, extra: list[str]) -> dict[str, Any]:
    """One `tcprof run` of the model file at HEAD, saved in `home`'s sessions folder."""
    cmd = [sys.executable, "-m", "tcprof.profiler", "run", str(repo / MODEL_FILE)]
    cmd += ["--arms", ARMS, "--batch-sizes", str(BATCH), "--seed", str(seed), "--quiet"]
    cmd += [*RUN_OPTIONS, "--json", *extra]
    proc = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, env=tcprof_env(home))
    if proc.returncode != 0:
        raise RuntimeError(f"tcprof run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    session = json.loads(proc.stdout)
    row = next(a for a in session["arms"] if a["name"] == "launch")["results"][0]
    breaks = next(a for a in session["arms"] if a["name"] == "launch").get("graph_breaks") or []
    return {"speedup": [row["speedup"], row["speedup_ci"]], "graph_breaks": len(breaks)}


def history_text(repo: Path, home: Path) -> str:
    """What `tcprof history MODEL` prints over the series."""
    cmd = [sys.executable, "-m", "tcprof.profiler", "history", str(repo / MODEL_FILE)]
    cmd += ["--sessions", str(home / "sessions"), "--html", str(home / "history.html")]
    proc = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, env=tcprof_env(home))
    if proc.returncode != 0:
        raise RuntimeError(f"tcprof history failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return proc.stdout


def flagged(text: str) -> list[str]:
    """The changes the history printed, one sentence each."""
    return [
        line.removeprefix("changed: ") for line in text.splitlines() if line.startswith("changed: ")
    ]


def verdict(changes: list[str], break_commit: str) -> str:
    """'ok' when exactly one change is flagged, a fall, at the break's commit, torch unchanged."""
    if len(changes) != 1:
        return f"{len(changes)} changes flagged, 1 expected"
    c = changes[0]
    if not re.search(rf"\bfell from .* at {re.escape(break_commit)} \(torch unchanged\)$", c):
        return f"flagged elsewhere or otherwise: {c}"
    return "ok"


# -- the truth, in one process -------------------------------------------------------------------
def truth(turns: int, block: int = 10, discard: int = 2) -> dict[str, float]:
    """launch's speedup before and after the break, and their ratio, in one process: eager, the
    file without the break and with it (both compiled with `launch`) take turns, `block` steps
    each, the first `discard` left out; means of the turns' log ratios of block medians."""
    import importlib.util
    import math
    import statistics
    import tempfile

    import torch

    torch.set_num_threads(THREADS)
    variants: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="tcprof-real-series-truth-") as tmp:
        for name, broken in (("eager", False), ("before", False), ("after", True)):
            path = Path(tmp) / f"net_{name}.py"
            path.write_text(model_source(0, broken), encoding="utf-8")
            spec = importlib.util.spec_from_file_location(f"net_{name}", path)
            assert spec and spec.loader
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            torch.manual_seed(0)
            model = mod.Net()
            if name != "eager":
                model.compile(backend="launch")
            variants[name] = (model, torch.optim.SGD(model.parameters(), lr=0.01))
        x, y = mod.make_batch(BATCH, torch.device("cpu"))

    def step(model: Any, opt: Any) -> int:
        t0 = time.perf_counter_ns()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return time.perf_counter_ns() - t0

    for model, opt in variants.values():
        for _ in range(10):
            step(model, opt)
    times: dict[str, list[float]] = {n: [] for n in variants}
    names = list(variants)
    for i in range(turns):
        for name in names if i % 2 == 0 else names[::-1]:
            turn = [step(*variants[name]) for _ in range(block)]
            times[name].append(statistics.median(turn[discard:]))
    out: dict[str, float] = {"turns": turns}
    pairs = {
        "before": ("eager", "before"),
        "after": ("eager", "after"),
        "ratio": ("before", "after"),
    }
    for key, (a, b) in pairs.items():
        logs = [math.log(p / q) for p, q in zip(times[a], times[b], strict=True)]
        out[key] = math.exp(statistics.fmean(logs))
        out[f"{key}_half_pct"] = (
            math.exp(1.96 * statistics.stdev(logs) / math.sqrt(turns)) - 1
        ) * 100
    out.update({f"{n}_ms": statistics.median(t) / 1e6 for n, t in times.items()})
    return out


# -- the record and its summary ------------------------------------------------------------------
def read_record(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def append(path: Path, rec: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(rec) + "\n")


def summarise(records: list[dict[str, Any]]) -> str:
    """A table of the runs, the truth and the history's verdict, from a record."""
    runs = sorted((r for r in records if r.get("kind") == "run"), key=lambda r: r["step"])
    lines = ["step  commit   break  speedup [95% interval]   breaks  wall     load before/after"]
    for r in runs:
        point, (lo, hi) = r["speedup"]
        load = "/".join(f"{v:.1f}" for v in (r["load_before"], r["load_after"]))
        lines.append(
            f"{r['step']:>4}  {r['commit']:<8} {'yes' if r['broken'] else 'no':<5}  "
            f"{point:.3f} [{lo:.3f}-{hi:.3f}]      {r['graph_breaks']:>3}  "
            f"{r['wall_s']:>5.0f} s  {load}"
        )
    before = [r["speedup"][0] for r in runs if not r["broken"]]
    after = [r["speedup"][0] for r in runs if r["broken"]]
    if before and after:
        import statistics

        ratio = statistics.median(after) / statistics.median(before)
        lines.append(f"measured: median speedup after / before the break = {ratio:.3f}")
    for t in (r for r in records if r.get("kind") == "truth"):
        lines.append(
            f"truth (one process, {t['turns']} turns): before {t['before']:.3f}, after "
            f"{t['after']:.3f}, after / before {t['ratio']:.3f} "
            f"(±{t['ratio_half_pct']:.1f}%); eager {t['eager_ms']:.2f} ms a step"
        )
    for h in (r for r in records if r.get("kind") == "history"):
        lines.append(f"history over {h['sessions']} sessions: {h['verdict']}")
        lines += [f"  changed: {c}" for c in h["changes"]]
    return "\n".join(lines)


# -- the series ----------------------------------------------------------------------------------
def series(args: argparse.Namespace) -> None:
    record, work = Path(args.record), Path(args.work)
    repo, home = work / "repo", work / "home"
    done = {r["step"] for r in read_record(record) if r.get("kind") == "run"}
    if not args.resume:
        if done or commits_made(repo):
            raise SystemExit(f"{record} or {repo} holds an earlier series: --resume, or clear them")
        init_repo(repo)
    steps = plan(args.before, args.after)
    for c in steps:
        if commits_made(repo) <= c.step:
            make_commit(repo, c)
        if c.step in done:
            continue
        load_before, t0 = os.getloadavg()[0], time.monotonic()
        figures = tcprof_run(repo, home, args.seed, args.extra)
        rec = {
            "kind": "run",
            "step": c.step,
            "commit": head(repo),
            "broken": c.broken,
            "seed": args.seed,
            **figures,
            "wall_s": time.monotonic() - t0,
            "load_before": load_before,
            "load_after": os.getloadavg()[0],
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        append(record, rec)
        print(summarise([rec]).splitlines()[-1], flush=True)
    append(record, {"kind": "truth", **truth(args.truth_turns)})
    text = history_text(repo, home)
    print(text, flush=True)
    break_commit = next(r["commit"] for r in read_record(record) if r.get("step") == args.before)
    changes = flagged(text)
    append(
        record,
        {
            "kind": "history",
            "sessions": len(steps),
            "changes": changes,
            "break_commit": break_commit,
            "verdict": verdict(changes, break_commit),
        },
    )
    print(summarise(read_record(record)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=int, default=5, help="sessions before the break")
    parser.add_argument("--after", type=int, default=3, help="sessions after the break's own")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--truth-turns", type=int, default=40)
    parser.add_argument("--work", default="/tmp/tcprof-real-series", help="repository, sessions")
    parser.add_argument("--record", help="append each run to this JSON-lines file")
    parser.add_argument("--resume", action="store_true", help="go on with --work's series")
    parser.add_argument("--summarise", help="print the figures recorded in FILE")
    parser.add_argument("extra", nargs="*", help="more `tcprof run` options (after --)")
    args = parser.parse_args()
    if args.summarise:
        print(summarise(read_record(Path(args.summarise))))
        return
    if not args.record:
        parser.error("--record FILE is needed (or --summarise FILE)")
    series(args)


if __name__ == "__main__":
    main()
