"""session.json as the session pipeline folds it (session/rows.py and the modules that fill a
row: compile cost, figures against the baseline, A/A controls) for hand-made events of several
kinds, as one JSON file: run it in two trees (before and after a change to session/) and diff
them. bench/sections_dump.py and bench/readers_dump.py check what the readers make of it.

Run (in each tree's root): PYTHONPATH=. .venv/bin/python -m bench.rows_dump OUT.json
"""

import json
import sys
from pathlib import Path

import numpy as np

from tcprof.profiler.config import ArmSpec
from tests.support.edge_family import edge_session
from tests.support.script_sessions import script_session
from tests.support.simulated_family import family_session, random_family
from tests.support.synthetic import eval_first_session, synthetic_session

ROUNDS = {
    0: [[10, 11, 10.5], [10.2, 10.1, 10.3], [9.9, 10, 10.1]],
    1: [[8, 8.1, 8.2], [8.3, 8.0, 8.1], [7.9, 8.2, 8.0]],
}
THREE_ARMS = (ArmSpec("eager"), ArmSpec("aot_eager"), ArmSpec("inductor"))

out = {
    "synthetic": synthetic_session(),
    "synthetic3": synthetic_session(arms=THREE_ARMS, batch_sizes=(4, 8)),
    "rounds": synthetic_session(rounds=ROUNDS),
    "eval_first": eval_first_session(),
    "script": script_session(),
    "edge": edge_session(),
}
rng = np.random.default_rng(3)
for i in range(4):
    out[f"family{i}"] = family_session(random_family(rng, 3, 4, 2), batch_sizes=(4, 8))
out["family_stop"] = family_session(random_family(rng, 3, 3, 1), stop_early=True)
for session in out.values():  # the wall clock of the fold differs between runs
    session.pop("started_at", None)
    session.pop("ended_at", None)
Path(sys.argv[1]).write_text(json.dumps(out, indent=1, sort_keys=True, default=str))
