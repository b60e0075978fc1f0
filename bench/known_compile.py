"""The compile cost against a backend of known compile time: tests/support/scripts/eval_first.py
(an evaluation under no_grad before training, as nanoGPT's train.py) on the sleeping backend
(tests/support/sleeping_backend.py: SLEEP_S per compile), its worker driven in this process.
Prints, per run, the compiles, the cost, the sleeps, and the first step's check."""

from __future__ import annotations

import sys

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.session.fold import SessionFold
from tests.support import sleeping_backend
from tests.support.paths import ROOT
from tests.support.script_harness import schedule, script_config, serve


def one_run() -> str:
    sleeping_backend.register()
    script = ROOT / "tests" / "support" / "scripts" / "eval_first.py"
    arms = (ArmSpec("eager"), ArmSpec(sleeping_backend.SLEEPING))
    cfg = script_config(script, ("--steps", "30"), arms=arms)
    events = [{"type": "run_start", "config": cfg.to_dict(), "wall_time": 0.0}]
    for arm in (0, 1):
        events += [{**e, "arm": arm, "replicate": 0} for e in serve(schedule(cfg, arm))]
    events.append({"type": "run_end", "status": "completed", "wall_time": 1.0})
    row = SessionFold.from_events(events).to_dict()["arms"][1]["results"][0]
    n = len(row["compiles_list"])
    backend = sum(e.get("backend_s") or 0 for e in events if e["type"] == "compile")
    check = row["compile_check"]
    return (
        f"compiles {n} ({', '.join(c['when'] for c in row['compiles_list'])}); "
        f"cost {row['compile_cold_s']:.3f} s; sleeps {n * sleeping_backend.SLEEP_S:.2f} s; "
        f"backend {backend:.3f} s; first step: events {check['events_s']:.3f} s, "
        f"excess {check['excess_s']:.3f} s, residual {check['residual_s']:+.3f} s"
    )


if __name__ == "__main__":
    for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        print(one_run(), flush=True)
