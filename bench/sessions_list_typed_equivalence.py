"""The Sessions list's speedup cells read from the model's typed arms (app/sessions/store.py
`speedups(arms_of(...))`) say exactly what the dict-based reading they replaced said (store.py at
OLD_COMMIT, read from git): the fuzzed saved sessions of bench/verdict_typed_equivalence.py
(rounds, speedups unsettled or settled, failures, partial rows, A/A controls' rows, arms with no
rows) are read by both and their two cells compared. The truth is the old implementation; a
difference is printed with its session.

Rerun: `QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.sessions_list_typed_equivalence [N]`
"""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.verdict_typed_equivalence import sessions
from tcprof.app.sessions.store import arms_of, speedups

OLD_COMMIT = "f151a34"  # main before the Sessions list read the model
ROOT = Path(__file__).resolve().parent.parent


def old_speedups() -> Any:
    text = subprocess.run(
        ["git", "show", f"{OLD_COMMIT}:app/sessions/store.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_store.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("old_store", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_store"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.speedups


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    old = old_speedups()
    differ = cells = 0
    for i, doc in enumerate(sessions(n)):
        arms = json.loads(json.dumps(doc["arms"]))  # as the list reads them: JSON
        before = old(copy.deepcopy(arms))
        after = speedups(arms_of(arms))
        cells += sum(bool(c) for c in before)
        if before != after:
            differ += 1
            print(f"session {i} differs:\n  {before}\n  {after}")
    print(f"{n} sessions, {cells} non-empty cells before: {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
