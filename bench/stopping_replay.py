"""Replay recorded sessions through the stopping rule: after each of their rounds, the interval
at the rule's level and what the rule (analysis/stopping.py, the default plan for the arms)
would have decided. A run of a fixed number of rounds says where it would have stopped.

Run: .venv/bin/python -m bench.stopping_replay SESSION_FOLDER [...]   (seconds)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tcprof.profiler.analysis import stopping
from tcprof.profiler.protocol import units
from tcprof.profiler.run.stopping_check import comparisons
from tcprof.profiler.session.fold import SessionFold


def replay(folder: Path) -> str | None:
    """Print each round's intervals and decision; the decision it stops on, if any."""
    session, plan, found = SessionFold(), None, None
    for line in (folder / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        session.apply(event)
        if event.get("type") == "run_start":
            plan = stopping.make_plan(len(session.arms))
        if event.get("type") != "round_end" or plan is None:
            continue
        rounds = event["replicate"] + 1
        intervals = comparisons(session, plan.level)
        decision = stopping.decide(plan, rounds, intervals)
        shown = ", ".join(
            f"{units.ratio(i.speedup)} [{units.ratio_span(i.low, i.high)}]" if i else "-"
            for i in intervals
        )
        print(
            f"  after {rounds} rounds: {shown}{'  STOP ' + str(decision.reason) if decision.stop else ''}"
        )
        if decision.stop and found is None:
            found = f"{decision.reason} after {rounds} rounds"
    return found


def main() -> None:
    for name in sys.argv[1:]:
        print(name)
        print("  would stop:", replay(Path(name)) or "not within its recorded rounds")


if __name__ == "__main__":
    main()
