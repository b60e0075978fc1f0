"""The real series' pieces (bench/history_real_series.py) without a real run: the repository and
its commits, the one line the break adds, the history's verdict, the record's summary, and a
series interrupted and resumed (tcprof's run, the truth and the history stood in for)."""

from __future__ import annotations

import difflib
import subprocess

import pytest

from bench import history_real_series as rs
from tcprof.profiler.config.provenance import git_facts

pytestmark = pytest.mark.timeout(60)


def test_the_plan_breaks_once_after_the_sessions_before_it():
    steps = rs.plan(5, 3)
    assert [c.step for c in steps] == list(range(9))
    assert [c.broken for c in steps] == [False] * 5 + [True] * 4
    assert "graph break" in steps[5].message


def test_only_a_comment_changes_between_unchanged_commits_and_the_break_adds_one_line():
    def diff(a: str, b: str) -> list[str]:
        lines = difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0)
        return [x for x in lines if x[:1] in "+-" and x[:3] not in ("+++", "---")]

    assert diff(rs.model_source(1, False), rs.model_source(2, False)) == [
        "-# revision 1",
        "+# revision 2",
    ]
    added = diff(rs.model_source(5, False), rs.model_source(5, True))
    assert [x[0] + x[1:].strip() for x in added] == ["+" + rs.BREAK_LINE]
    for broken in (False, True):
        compile(rs.model_source(0, broken), rs.MODEL_FILE, "exec")


def test_each_commit_is_clean_and_named_as_the_history_names_it(tmp_path):
    repo = tmp_path / "repo"
    rs.init_repo(repo)
    assert rs.commits_made(repo) == 0
    shorts = [rs.make_commit(repo, c) for c in rs.plan(2, 1)]
    assert rs.commits_made(repo) == 4
    (repo / "__pycache__").mkdir()  # a worker's bytecode leaves the tree clean
    (repo / "__pycache__" / "net.cpython.pyc").write_bytes(b"")
    prov = git_facts(repo / rs.MODEL_FILE)
    assert prov is not None
    assert (prov["short"], prov["dirty"], prov["path"]) == (shorts[-1], False, rs.MODEL_FILE)
    log = subprocess.run(
        ["git", "log", "--format=%s"], cwd=repo, capture_output=True, text=True
    ).stdout.split("\n")
    assert log[:2] == ["a comment, revision 3", "a graph break in the middle of forward"]


def history(*changes: str) -> str:
    lines = ["series abc: net.py (9 sessions)", "", "date commit ...", ""]
    return "\n".join(lines + [f"changed: {c}" for c in changes] + ["rule: ..."])


FELL = "launch's speedup (bs 256) fell from 0.75× [0.73-0.77] to 0.60× [0.58-0.62] at {} ({})"


@pytest.mark.parametrize(
    ("changes", "ok"),
    [
        ([FELL.format("c0ffee5", "torch unchanged")], True),
        ([FELL.format("deadbee", "torch unchanged")], False),  # flagged at another commit
        ([FELL.format("c0ffee5", "torch 2.1 → 2.2")], False),
        ([FELL.format("c0ffee5", "torch unchanged")] * 2, False),
        ([], False),
    ],
)
def test_the_verdict_wants_one_fall_at_the_break(changes, ok):
    found = rs.flagged(history(*changes))
    assert found == changes
    assert (rs.verdict(found, "c0ffee5") == "ok") is ok


def test_a_series_interrupted_goes_on_where_it_stopped_and_is_summarised(tmp_path, monkeypatch):
    """The machine goes away at the fourth run; --resume runs each step left once."""
    fail_at = [3]

    def fake_run(repo, home, seed, extra):
        if rs.commits_made(repo) - 1 == fail_at[0]:
            raise RuntimeError("the machine went away")
        broken = rs.BREAK_LINE in (repo / rs.MODEL_FILE).read_text()
        return {"speedup": [0.6 if broken else 0.75, [0.58, 0.77]], "graph_breaks": int(broken)}

    def fake_history(repo, home):
        break_commit = next(r["commit"] for r in rs.read_record(record) if r.get("step") == 4)
        return history(FELL.format(break_commit, "torch unchanged"))

    monkeypatch.setattr(rs, "tcprof_run", fake_run)
    monkeypatch.setattr(rs, "history_text", fake_history)
    monkeypatch.setattr(rs, "truth", lambda turns: TRUTH)
    record, repo = tmp_path / "rec.jsonl", tmp_path / "w" / "repo"
    argv = ["x", "--work", str(tmp_path / "w"), "--record", str(record), "--before", "4"]
    monkeypatch.setattr("sys.argv", [*argv, "--after", "2"])
    with pytest.raises(RuntimeError, match="went away"):
        rs.main()
    assert [r["step"] for r in rs.read_record(record)] == [0, 1, 2]
    with pytest.raises(SystemExit):  # not over an earlier series without --resume
        rs.main()
    fail_at[0] = -1
    monkeypatch.setattr("sys.argv", [*argv, "--after", "2", "--resume"])
    rs.main()
    records = rs.read_record(record)
    runs = [r for r in records if r["kind"] == "run"]
    assert [r["step"] for r in runs] == list(range(7))  # each step once
    assert rs.commits_made(repo) == 7
    full = rs.git(repo, "log", "--format=%H", "--reverse").split()
    assert [r["commit"] for r in runs] == [c[:7] for c in full]
    assert [r["broken"] for r in runs] == [False] * 4 + [True] * 3
    assert all({"seed", "wall_s", "load_before", "load_after", "at"} <= set(r) for r in runs)
    assert records[-1]["verdict"] == "ok" and records[-1]["break_commit"] == runs[4]["commit"]
    text = rs.summarise(records)
    assert "after / before the break = 0.800" in text
    assert "after / before 0.813" in text
    assert "history over 7 sessions: ok" in text


TRUTH = {
    "turns": 30,
    "before": 0.746,
    "before_half_pct": 12.0,
    "after": 0.607,
    "after_half_pct": 14.0,
    "ratio": 0.813,
    "ratio_half_pct": 8.1,
    "eager_ms": 11.1,
    "before_ms": 14.0,
    "after_ms": 17.8,
}
