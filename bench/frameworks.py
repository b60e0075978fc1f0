"""Training scripts on the frameworks people use, run unchanged by `tcprof run`: Hugging Face
Transformers' `Trainer` (a GPT-2 built from its config), Lightning's `Trainer` (a
LightningModule's MLP) and an Accelerate loop (it compiles the model itself, through
`Accelerator(dynamo_backend=...)`), each eager against a compiled arm, several rounds, the
accuracy pass on. The scripts are the suite's (tests/support/scripts/frameworks/), made larger
and longer by their own options.

Per framework it prints the command, the wall time of the whole run, and per arm the median
step, the throughput (what the session's row holds: a figure per second), the speedup with its
interval, the compile cost beside the sum of torch's compile events, the number of compiles, and
the model as the session names it.

Run: .venv/bin/python -m bench.frameworks [--arms eager,inductor] [--replicates 3] [--only hf]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "tests" / "support" / "scripts" / "frameworks"

# name -> the script and its options: larger models and more steps than the suite's runs
RUNS = {
    "hf": ["hf_trainer.py", "--layers", "2", "--embd", "64", "--seq-len", "64"]
    + ["--max-steps", "400"],
    "lightning": ["lightning_train.py", "--features", "64", "--max-steps", "400"],
    "accelerate": ["accelerate_train.py", "--compile", "--features", "64", "--epochs", "20"],
}


def run(name: str, args: argparse.Namespace) -> None:
    script, *script_args = RUNS[name]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "session"
        command = ["python", str(SCRIPTS / script), *script_args]
        if name == "hf":
            command += ["--out", str(Path(tmp) / "trainer_out")]
        options = ["--arms", args.arms, "--replicates", str(args.replicates)]
        options += ["--warmup", "5", "--steps", "40", "--blocks", "2", "--threads", "1"]
        tcprof = [sys.executable, "-m", "tcprof.profiler", "run", *options, "--quiet"]
        began = time.monotonic()
        done = subprocess.run(
            [*tcprof, "--out", str(out), "--", *command], cwd=tmp, capture_output=True, text=True
        )
        wall = time.monotonic() - began
        shown = " ".join(["tcprof run", *options, "--", "python", script, *script_args])
        print(f"\n{name}: {shown}\n  exit {done.returncode}, {wall:.1f} s in all")
        if not (out / "session.json").exists():
            print(done.stderr[-2000:])
            return
        report(json.loads((out / "session.json").read_text()), out / "events.jsonl")


def report(session: dict, events_path: Path) -> None:
    events = [json.loads(line) for line in events_path.read_text().splitlines() if line.strip()]
    for index, arm in enumerate(session["arms"]):
        row = arm["results"][0]
        compiles = [e for e in events if e.get("type") == "compile" and e.get("arm") == index]
        rounds: dict[int, float] = {}
        for e in compiles:
            rounds[e.get("replicate", 0)] = rounds.get(e.get("replicate", 0), 0.0) + (
                e["seconds"] or 0.0
            )
        per_s = {k: round(v, 1) for k, v in row.items() if k.endswith("_per_s") and v}
        ci = row.get("speedup_ci")
        speedup = "baseline" if index == 0 else _speedup(row.get("speedup"), ci)
        notes = (arm.get("script") or {}).get("notes") or []
        model = next((n["text"] for n in notes if n.get("kind") == "model"), "?")
        compile_s = row.get("compile_s")
        print(
            f"  {arm['name']:<10} {row['status']:<6} median {_ms(row.get('median_ms'))} ms, "
            f"throughput {per_s or '-'}, speedup {speedup}, "
            f"accuracy {_accuracy(row.get('accuracy'))}"
        )
        if index:
            first = rounds.get(0)
            print(
                f"    compile {compile_s if compile_s is None else round(compile_s, 2)} s; "
                f"torch's compile events {len(compiles)} over {len(rounds)} round(s), "
                f"the first round's sum {first if first is None else round(first, 2)} s"
            )
        print(f"    {model}")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _accuracy(found: object) -> str:
    if isinstance(found, dict):
        return str(found.get("status", "-"))
    return "-" if found is None else str(found)


def _speedup(value: float | None, ci: list[float] | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}x" + (f" [{ci[0]:.2f}-{ci[1]:.2f}]" if ci else "")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--arms", default="eager,aot_eager")
    parser.add_argument("--replicates", type=int, default=3)
    parser.add_argument("--only", choices=sorted(RUNS), action="append")
    args = parser.parse_args()
    for name in args.only or list(RUNS):
        run(name, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
