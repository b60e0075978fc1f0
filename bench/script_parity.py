"""The loss-parity tolerance of a script, measured: how far a compiled arm's loss curve lies from
eager's over the first steps, from the same seeds, for each test script and backend, against a
compiler that computes something else (the fault-injecting relu_accuracy_error_TESTING_ONLY).

Each script runs in this process through the worker's own accuracy pass (eager, eager again,
the arm with inductor's fallback_random), so the figures are what `tcprof run` judges.

Run: .venv/bin/python -m bench.script_parity [--backends aot_eager,inductor] [--steps 10]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig, ScriptSource
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.command_stream import CommandReader
from tcprof.profiler.worker.script.commands import serve_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "tests" / "support" / "scripts"
CASES = {
    "guide_1x": ("guide_1x.py", ()),
    "relu_net": ("relu_net.py", ()),
    "dataloader_mlp": ("dataloader_mlp.py", ("--epochs", "1", "--num-workers", "0")),
    "varying_seq": ("varying_seq.py", ()),
    "tiny_gpt": (
        "tiny_gpt/train.py",
        ("config/train_tiny.py", "--compile=False", "--max_iters=30"),
    ),
}


class _Events(EventChannel):
    def __init__(self) -> None:
        super().__init__(-1)
        self.events: list[dict[str, Any]] = []

    def emit(self, type_: str, **fields: Any) -> None:
        self.events.append({"type": type_, **fields})


def parity(
    path: Path, args: tuple[str, ...], backend: str, steps: int, cwd: Path
) -> dict[str, Any]:
    script = ScriptSource(path=str(path), args=args, cwd=str(cwd))
    arms = (ArmSpec("eager"), ArmSpec(backend))
    cfg = RunConfig(
        source=ModelSource(path=str(path)),
        script=script,
        arms=arms,
        warmup=steps - 1,
        steps=1,
        blocks=1,
        replicates=1,
        batch_sizes=(1,),
        accuracy_rtol=1.0,
    )
    channel = _Events()
    commands = [{"cmd": "accuracy", "batch_sizes": [1]}, {"cmd": "exit"}]
    reader = CommandReader([json.dumps(c) + "\n" for c in commands], channel)
    serve_script(channel, reader, {"cmd": "load", "config": cfg.to_dict(), "arm_index": 1})
    acc = next(e for e in channel.events if e["type"] == "accuracy")
    curves = acc.get("curves") or {}
    rel = [
        abs(a - e) / abs(e)
        for e, a in zip(curves.get("eager") or [], curves.get("arm") or [], strict=False)
        if e is not None and a is not None and e
    ]
    return {
        "status": acc["status"],
        "steps": acc.get("steps"),
        "first_rel": rel[0] if rel else None,
        "max_rel": max(rel) if rel else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backends", default="aot_eager,inductor,relu_accuracy_error_TESTING_ONLY")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    for case in args.cases.split(","):
        name, script_args = CASES[case]
        for backend in args.backends.split(","):
            with tempfile.TemporaryDirectory() as tmp:
                work = Path(tmp)
                source = SCRIPTS / name
                if name.startswith("tiny_gpt"):
                    shutil.copytree(SCRIPTS / "tiny_gpt", work, dirs_exist_ok=True)
                    source = work / "train.py"
                out = parity(source, script_args, backend, args.steps, work)
            first, worst = out["first_rel"], out["max_rel"]
            print(
                f"{case:15s} {backend:34s} steps {out['steps']}  step 0 rel {first:.2e}  "
                f"worst rel {worst:.2e}",
                flush=True,
            )


if __name__ == "__main__":
    main()
