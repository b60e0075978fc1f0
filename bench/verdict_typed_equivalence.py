"""The verdict sentences and notes over the typed model (model/verdict.py, model/notes.py) say
exactly what the dict-based ones they replaced said (analysis/verdict.py before the move, read
from git at OLD_COMMIT): fuzzed saved sessions (rounds, speedups, errors, partial rows, memory,
accuracy, contention, A/A controls, Holm, scripts' sweeps) are read by both and compared, text
and tone. The truth is the old implementation; a difference is printed with its session.

Rerun: `.venv/bin/python -m bench.verdict_typed_equivalence [N]` (docs/benchmarks.md).
"""

from __future__ import annotations

import copy
import importlib.util
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis.verdict import session_notes, session_verdicts
from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.session import SessionModel
from tests.support.paths import DATA
from tests.support.synthetic import synthetic_session

OLD_COMMIT = "0b94d7b"  # main before the verdict moved into the model
ROOT = Path(__file__).resolve().parent.parent


def old_module() -> Any:
    text = subprocess.run(
        ["git", "show", f"{OLD_COMMIT}:profiler/analysis/verdict.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.replace(
        "from tcprof.profiler.analysis.comparisons import comparisons_text",
        "from tcprof.profiler.model.notes import comparisons_text",
    )
    path = Path(tempfile.mkdtemp()) / "old_verdict.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("old_verdict", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_verdict"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _rounds(rng: random.Random, arms: int) -> dict[int, list[list[float]]]:
    count = rng.choice([1, 2, 3, 4])
    out = {}
    for i in range(arms):
        centre = 2.0 if i == 0 else 2.0 / rng.choice([0.4, 0.6, 0.9, 0.99, 1.0, 1.02, 1.3, 2.5])
        noise = rng.choice([0.01, 0.05, 0.3])
        out[i] = [
            [centre * rng.uniform(1 - noise, 1 + noise) for _ in range(4)] for _ in range(count)
        ]
    return out


def _mutate(rng: random.Random, doc: dict[str, Any]) -> None:
    """What real sessions also hold: failures, partial rows, memory, accuracy, contention,
    controls, Holm's word, a stopped run, a script's sweep."""
    doc["status"] = rng.choice(["ok", "ok", "stopped", "timeout"])
    for arm in doc["arms"]:
        for row in arm.get("results") or []:
            pick = rng.random()
            if pick < 0.08:
                row["status"] = rng.choice(["error", "oom"])
                row["error"] = {"kind": "oom", "message": "CUDA out of  memory (tried 2 GiB)"}
            elif pick < 0.14:
                row["fell_back"] = True
            if rng.random() < 0.2:
                row.update(partial=True, steps_measured=rng.randint(0, 40), steps_planned=50)
            if rng.random() < 0.5:
                row["memory_ratio"] = rng.choice([0.5, 0.87, 1.0, 1.2, 0.0, None])
                row["rss_ratio"] = rng.choice([0.6, 0.9, 1.0, None])
                row["peak_rss_mb"] = 512.0
            if rng.random() < 0.4:
                row["accuracy"] = {"status": rng.choice(["pass", "fail", "nondeterministic"])}
            if rng.random() < 0.3:
                row["contended_blocks"] = rng.randint(0, 6)
                row["unquiet_blocks"] = rng.randint(0, 6)
                row["blocks_measured"] = rng.choice([12, None])
            if rng.random() < 0.2:
                row["holds_after_adjustment"] = False
            if rng.random() < 0.15 and row.get("speedup") is not None:
                row.update(aa_of="eager", aa_flagged=True, aa_speedup=1.04, aa_ci=[1.01, 1.07])
            if rng.random() < 0.2:
                row["first_step_extra_s"] = rng.choice([0.001, 0.4])
    if rng.random() < 0.15:
        doc["arms"][-1]["results"] = []
        if rng.random() < 0.7:
            doc["arms"][-1]["error"] = {"kind": "load", "message": "no module named  x"}
    if rng.random() < 0.15:
        doc["config"]["script"] = {"sweep": rng.choice([None, "seq", "batch_size"])}
    if rng.random() < 0.3:
        doc["schedule"] = {"note": "the schedule was not balanced"}


def sessions(n: int, seed: int = 0) -> list[dict[str, Any]]:
    import json

    rng = random.Random(seed)
    out = [json.loads((DATA / "session_v1.json").read_text())]
    backends = ["aot_eager", "inductor", "cudagraphs"]
    while len(out) < n:
        arms = (ArmSpec("eager"), *(ArmSpec(b) for b in rng.sample(backends, rng.randint(1, 3))))
        sizes = tuple(sorted(rng.sample([1, 8, 16, 32, 64, 128], rng.randint(1, 6))))
        doc = synthetic_session(arms=arms, batch_sizes=sizes, rounds=_rounds(rng, len(arms)))
        for _ in range(2):
            copied = copy.deepcopy(doc)
            _mutate(rng, copied)
            out.append(copied)
    return out


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    old = old_module()
    differ = 0
    docs = sessions(n)
    for i, doc in enumerate(docs):
        before = [(v.arm, v.text, v.tone) for v in old.session_verdicts(copy.deepcopy(doc))]
        before_notes = old.session_notes(copy.deepcopy(doc))
        after = [(v.arm, v.text, v.tone) for v in session_verdicts(SessionModel.read(doc))]
        after_notes = session_notes(SessionModel.read(doc))
        if before != after or before_notes != after_notes:
            differ += 1
            print(f"session {i} differs:\n  {before}\n  {after}\n  {before_notes}\n  {after_notes}")
    sentences = sum(len(session_verdicts(SessionModel.read(d))) for d in docs)
    print(f"{len(docs)} sessions, {sentences} verdict sentences: {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
