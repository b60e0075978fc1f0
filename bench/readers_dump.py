"""What the readers of a session print beyond bench/sections_dump.py, as one JSON file to diff
between two trees: the terminal summary, the verdict doors, both reports, every arm's
reproducer, compare's text and method note for every pair of the fixtures' sessions, and the
method notes and summary of one session of six rounds under schedules of each kind.

Run (in each tree's root): PYTHONPATH=. .venv/bin/python -m bench.readers_dump OUT.json
"""

import copy
import json
import sys

from tcprof.profiler.analysis.verdict import session_notes, session_verdicts, verdict_lines
from tcprof.profiler.cli.summary import render_summary
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report import compare
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.reproduce import render_reproducer
from tcprof.profiler.report.sections.method import method_notes
from tests.support.synthetic import synthetic_session

POSITIONS = {"eager": [3, 3], "aot_eager": [3, 3]}
SCHEDULES = {
    "none": None,
    "balanced6": {"design": "williams", "balanced": True, "rounds": 6, "positions": POSITIONS},
    "balanced2": {"design": "williams", "balanced": True, "rounds": 2, "positions": POSITIONS},
    "unbalanced": {"design": "williams", "balanced": False, "rounds": 3, "positions": POSITIONS},
    "one_arm": {"design": "williams", "balanced": True, "rounds": 6, "positions": {"eager": [6]}},
    "other_design": {"design": "latin", "balanced": True, "rounds": 6, "positions": POSITIONS},
    "str_rounds": {"design": "williams", "balanced": True, "rounds": "6", "positions": POSITIONS},
    "list_positions": {"design": "williams", "balanced": 1, "rounds": 6, "positions": [1, 2]},
}


def run(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # recorded, compared like any output
        return "ERROR " + type(e).__name__ + ": " + str(e)


def _verdicts(m):
    return [(v.arm, v.text, v.tone) for v in session_verdicts(m)]


def _reproducers(m):
    return [render_reproducer(m, a.name) for a in m.arms]


def _compared(before, after):
    return compare.render(compare.diff_sessions(before, after), "a", "b")


def fixtures():
    from tests.support.script_sessions import script_session
    from tests.support.synthetic import eval_first_session

    yield "synthetic", synthetic_session()
    yield "eval_first", eval_first_session()
    yield "script", script_session()
    yield "v1", json.loads(open("tests/support/data/session_v1.json").read())


def dump():
    out = {}
    docs = dict(fixtures())
    models = {k: SessionModel.from_json(copy.deepcopy(v)) for k, v in docs.items()}
    for name, m in models.items():
        out[name] = {
            "summary": run(render_summary, m),
            "verdicts": run(_verdicts, m),
            "notes": run(session_notes, m),
            "lines": run(verdict_lines, m),
            "md": run(render_markdown, m),
            "html": run(render_html, m),
            "reproduce": run(_reproducers, m),
        }
    for a in models:
        for b in models:
            later = copy.deepcopy(docs[b])
            later["started_at"] = (later.get("started_at") or 0) + 100
            after = SessionModel.from_json(later)
            diff = run(_compared, models[a], after)
            out[f"compare {a} {b}"] = diff
            out[f"method {a} {b}"] = run(compare.method_note, models[a], after)
    rounds = {0: [[10.0, 10.2, 9.9, 10.1]] * 6, 1: [[5.0, 5.1, 4.9, 5.2]] * 6}
    for name, schedule in SCHEDULES.items():
        doc = synthetic_session(rounds=rounds)
        if schedule is not None:
            doc["schedule"] = schedule
        m = SessionModel.from_json(doc)
        out[f"schedule {name}"] = [run(method_notes, m), run(render_summary, m)]
    return out


if __name__ == "__main__":
    json.dump(dump(), open(sys.argv[1], "w"), indent=1, sort_keys=True, default=str)
