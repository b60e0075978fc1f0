"""Every report section's output for the test fixtures and the session.json files given, as one
JSON file: run it in two trees (before and after a change to report/sections) and diff them.

Run (in each tree's root): PYTHONPATH=. .venv/bin/python -m bench.sections_dump OUT.json [FILE...]
"""

import json
import sys
from pathlib import Path

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import esc
from tcprof.profiler.report.sections import (
    compile_list,
    configuration,
    insight,
    method,
    page_end,
    regional,
    run_output,
    script,
    seeding,
    stragglers,
    summary,
    table,
    top_ops,
)
from tcprof.profiler.report.sections import timeline as tl


def md(x):
    return str(x)


def dump(session):
    out = {}
    model = SessionModel.read(session)  # the sections' door; the ranks' section takes the dict
    fns = {
        "summary": lambda: summary.summary(model, esc),
        "insight": lambda: insight.insight(model, esc),
        "errors": lambda: run_output.errors(model, esc),
        "configuration": lambda: configuration.configuration(model, esc),
        "environment": lambda: configuration.environment(model, esc),
        "logs": lambda: run_output.logs(model, esc),
        "footer": lambda: page_end.footer(model, esc),
        "top_ops": lambda: top_ops.html_section(model, esc),
        "top_ops_md": lambda: top_ops.markdown_lines(model, md),
        "comparable": lambda: [list(p) for p in top_ops.comparable(model)],
        "op_comparison": lambda: [
            top_ops.op_comparison(model, n, b) for n, b in top_ops.comparable(model)
        ],
        "script_html": lambda: script.html_section(model, esc),
        "script_md": lambda: script.markdown_lines(model, md),
        "script_text": lambda: script.text_lines(model, table.render_table),
        "script_note": lambda: script.accuracy_note(model),
        "work_unit": lambda: script.work_unit(model),
        "table_rows": lambda: table.table_rows(model),
        "method_notes": lambda: method.method_notes(model),
        "steps_text": lambda: method.steps_text(model),
        "seeding": lambda: seeding.seeding_notes(model),
        "regional": lambda: (
            regional.html_section(model, esc) + "\n".join(regional.markdown_lines(model, md))
        ),
        "stragglers": lambda: (
            stragglers.html_section(session, esc)
            + "\n".join(stragglers.markdown_lines(session, md))
        ),
        "compile_md": lambda: [
            compile_list.markdown_lines(model, r, md, a) for a in model.arms for r in a.rows
        ],
        "timeline": lambda: [
            tl.html_section(model, esc),
            tl.markdown_lines(model, md),
            tl.summary_line(model),
        ],
    }
    for name, fn in fns.items():
        try:
            out[name] = fn()
        except Exception as e:
            out[name] = "ERROR " + type(e).__name__ + ": " + str(e)
    return out


def sessions():
    from tests.support.script_sessions import script_session
    from tests.support.synthetic import eval_first_session, synthetic_session

    yield "synthetic", synthetic_session()
    yield "eval_first", eval_first_session()
    yield "script", script_session()
    yield "v1", json.loads(Path("tests/support/data/session_v1.json").read_text())
    for p in sys.argv[2:]:
        yield p, json.loads(Path(p).read_text())


result = {name: dump(s) for name, s in sessions()}
Path(sys.argv[1]).write_text(json.dumps(result, indent=1, sort_keys=True, default=str))
