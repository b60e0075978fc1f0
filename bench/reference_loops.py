"""Reference speedups from plain training loops, with no tcprof code in the timed path.

Why: tcprof's eager-vs-compiled speedup goes through its engine, worker protocol and stats.
This script times the same training step (same model, seed, batches, loss and SGD step as
tcprof's worker) in bare per-process loops, so tcprof's figures can be checked side by side.

Each measurement is a fresh `python -c` child per (arm, process index), run one at a time in
ABBA order (eager, compiled, compiled, eager, ...): it sets the thread count, builds the model
with the seed, wraps it in torch.compile for the compiled arm, runs the first step and the
warm-up untimed, freezes and disables the GC, times each step with perf_counter_ns and prints
one JSON line. The inductor cache is the shared default one: this is steady-state step time.
Speedup = median(eager process medians) / median(compiled process medians). The progress log
(stderr) shows each process's CPU use while timed: far below the thread count means another
program took cores from it (on a 2-core machine one busy neighbour can triple a step time).

Run: .venv/bin/python -m bench.reference_loops --example mlp --backend inductor \
        --batch-size 64 --processes 5 --warmup 20 --steps 100 [--threads N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil

EXAMPLES = Path(__file__).resolve().parents[1] / "resources" / "examples"

# The child: a plain equivalent of tcprof's worker step (profiler/worker/{arm_worker,inputs}.py).
CHILD = r"""
import gc, importlib.util, inspect, json, statistics, sys, time
import torch, torch.nn as nn, torch.nn.functional as F
cfg = json.loads(sys.argv[1])
torch.set_num_threads(cfg["threads"])
seed, bs = cfg["seed"], cfg["batch_size"]
sys.path.insert(0, cfg["dir"])
spec = importlib.util.spec_from_file_location("ref_user_model", cfg["path"])
mod = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = mod
spec.loader.exec_module(mod)

def zero_arg(c):
    ps = inspect.signature(c).parameters.values()
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in ps)

torch.manual_seed(seed)
if callable(getattr(mod, "make_model", None)):
    model = mod.make_model()
else:
    classes = [c for c in vars(mod).values() if isinstance(c, type) and issubclass(c, nn.Module)
               and c.__module__ == mod.__name__ and zero_arg(c)]
    model = sorted(classes, key=lambda c: inspect.getsourcelines(c)[1])[-1]()
model.train()
opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
names = list(inspect.signature(model.forward).parameters)[1:]
tkw = next((n for n in names if n in ("targets", "target", "labels", "label", "y")), None)

def make_batch(i):
    torch.manual_seed(seed * 1_000_003 + bs * 101 + i)
    if callable(getattr(mod, "make_batch", None)):
        x, y = mod.make_batch(bs, torch.device("cpu"))
    else:
        first = next(m for m in model.modules() if any(True for _ in m.parameters(recurse=False)))
        if isinstance(first, nn.Embedding):
            embs = [m.num_embeddings for m in model.modules() if isinstance(m, nn.Embedding)]
            block = getattr(getattr(model, "config", None), "block_size", None)
            seq = min([32, *embs[1:], *([block] if isinstance(block, int) else [])])
            x = torch.randint(0, first.num_embeddings, (bs, seq))
            y = torch.randint(0, first.num_embeddings, (bs, seq))
        elif isinstance(first, nn.Linear):
            x, y = torch.randn(bs, first.in_features), None
        else:
            raise SystemExit(f"unsupported first layer {type(first).__name__}; add make_batch")
    args = tuple(x) if isinstance(x, (tuple, list)) else (x,)
    return args, ({tkw: y} if tkw and y is not None else {}), y

batches = [make_batch(i) for i in range(max(1, min(4, cfg["steps"] + cfg["warmup"] + 1)))]
runner = torch.compile(model, backend=cfg["backend"]) if cfg["backend"] else model

def pick_loss(out, y):
    # Decided once on the first output, as tcprof's LossOf does.
    if isinstance(out, (tuple, list)):
        for k, o in enumerate(out):
            if isinstance(o, torch.Tensor) and o.dim() == 0 and o.is_floating_point():
                return lambda out, y: out[k]  # the model returns its loss
        raise SystemExit("a tuple output with no 0-dim loss is not supported here")
    if isinstance(y, torch.Tensor) and not y.is_floating_point():
        if out.dim() > y.dim():
            return lambda out, y: F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        return F.cross_entropy
    if isinstance(y, torch.Tensor):
        return F.mse_loss
    gen = torch.Generator().manual_seed(seed + 7919 * out.shape[0])
    target = torch.randn(tuple(out.shape), generator=gen).to(out.dtype)
    return lambda out, y: F.mse_loss(out, target)

torch.manual_seed(seed + bs)  # same dropout stream in every arm
t_first = time.perf_counter()
args, kwargs, y = batches[0]
out = runner(*args, **kwargs)
loss_fn = pick_loss(out, y)
loss_fn(out, y).backward()
opt.step()
opt.zero_grad()
first_s = time.perf_counter() - t_first

def step(args, kwargs, y):
    loss = loss_fn(runner(*args, **kwargs), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss

n = len(batches)
for i in range(1, 1 + cfg["warmup"]):
    step(*batches[i % n])
gc.collect(); gc.freeze(); gc.disable()
clock, ns, cpu0, wall0 = time.perf_counter_ns, [], time.process_time_ns(), time.perf_counter_ns()
for i in range(1 + cfg["warmup"], 1 + cfg["warmup"] + cfg["steps"]):
    b = batches[i % n]
    t0 = clock()
    loss = step(*b)
    ns.append(clock() - t0)
ms, cpu = [v / 1e6 for v in ns], (time.process_time_ns() - cpu0) / (clock() - wall0)
print(json.dumps({"ms": ms, "median_ms": statistics.median(ms), "first_step_s": first_s,
                  "threads": torch.get_num_threads(), "cpu": cpu, "loss": float(loss)}))
"""


def _run_child(cfg: dict) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(cfg)], capture_output=True, text=True
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"child failed (rc {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


def reference_speedup(
    example: str,
    backend: str,
    batch_size: int,
    processes: int = 5,
    warmup: int = 20,
    steps: int = 100,
    threads: int | None = None,
    log=None,
) -> dict:
    path = Path(example) if example.endswith(".py") else EXAMPLES / f"{example}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no example {example!r} ({path})")
    threads = threads or psutil.cpu_count(logical=False) or os.cpu_count() or 1
    base = dict(path=str(path.resolve()), dir=str(path.resolve().parent), seed=0, lr=0.01)
    base.update(batch_size=batch_size, warmup=warmup, steps=steps, threads=threads)
    medians: dict[str, list[float]] = {"eager": [], "compiled": []}
    for k in range(processes):
        for arm in ("eager", "compiled") if k % 2 == 0 else ("compiled", "eager"):
            t0 = time.perf_counter()
            res = _run_child({**base, "backend": backend if arm == "compiled" else None})
            medians[arm].append(res["median_ms"])
            if log:
                log(
                    f"  pair {k} {arm:8s} median {res['median_ms']:8.3f} ms  first step "
                    f"{res['first_step_s']:5.2f} s  cpu {res['cpu']:4.2f}/{threads} cores busy  "
                    f"process {time.perf_counter() - t0:5.1f} s"
                )
    eager, compiled = medians["eager"], medians["compiled"]
    return {
        "example": example,
        "backend": backend,
        "batch_size": batch_size,
        "threads": threads,
        "eager_process_medians_ms": eager,
        "compiled_process_medians_ms": compiled,
        "eager_median_ms": statistics.median(eager),
        "compiled_median_ms": statistics.median(compiled),
        "speedup": statistics.median(eager) / statistics.median(compiled),
        "pair_ratios": [e / c for e, c in zip(eager, compiled, strict=True)],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--example", default="mlp", help="name in resources/examples or a .py path")
    ap.add_argument("--backend", default="inductor")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--processes", type=int, default=5, help="processes per arm")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--threads", type=int, default=None, help="default: physical cores")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON object")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    r = reference_speedup(
        a.example, a.backend, a.batch_size, a.processes, a.warmup, a.steps, a.threads,
        log=lambda s: print(s, file=sys.stderr, flush=True),
    )  # fmt: skip
    if a.json:
        print(json.dumps(r))
        return 0
    pr = r["pair_ratios"]
    ratios = f"{min(pr):.3f}-{max(pr):.3f} ({' '.join(f'{x:.3f}' for x in pr)})"
    print(f"{r['example']} / {r['backend']}, batch {r['batch_size']}, {r['threads']} threads")
    for arm in ("eager", "compiled"):
        ms = " ".join(f"{x:8.3f}" for x in r[f"{arm}_process_medians_ms"])
        print(f"  {arm:9s} median {r[f'{arm}_median_ms']:8.3f} ms   process medians: {ms}")
    print(f"  reference speedup {r['speedup']:.3f}x   spread of pair ratios {ratios}")
    print(f"  wall {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
