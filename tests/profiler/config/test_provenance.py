"""Provenance: a model file in a git repository profiled with the scripted fake worker records
the commit, branch and dirty state; outside a repository it records nothing, and no error."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tcprof.profiler.api.session import load
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig, provenance
from tcprof.profiler.config.provenance import git_facts
from tcprof.profiler.folders.files import save_session
from tcprof.profiler.run.runner import Runner
from tests.support.fake_worker import FakeWorkers

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="no git binary")


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository on branch `trunk` with one commit holding models/net.py."""
    root = tmp_path / "repo"
    (root / "models").mkdir(parents=True)
    (root / "models" / "net.py").write_text("# a model\n")
    _git(root, "init", "-q", "-b", "trunk")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "first")
    return root


def _profiled(model: Path, tmp_path: Path) -> dict:
    config = RunConfig(
        source=ModelSource(str(model)),
        arms=(ArmSpec("eager"), ArmSpec("aot_eager")),
        batch_sizes=(8,),
        warmup=1,
        steps=2,
        blocks=1,
        replicates=1,
        min_block_ms=0,
        threads=1,
        accuracy=False,
        timeout_s=10,
    )
    session = Runner(config, listeners=[], worker_factory=FakeWorkers()).run()
    return session.to_dict()


@needs_git
def test_a_model_in_a_repository_records_its_commit_branch_and_dirty_state(repo, tmp_path):
    head = _git(repo, "rev-parse", "HEAD")
    clean = _profiled(repo / "models" / "net.py", tmp_path)
    assert clean["schema_version"] == 4
    assert clean["provenance"]["tcprof"] == provenance.tcprof_version()
    assert clean["provenance"]["git"] == {
        "commit": head,
        "short": head[:7],
        "branch": "trunk",
        "dirty": False,
        "root": str(repo),
        "path": "models/net.py",
    }
    # each arm keeps its own interpreter and versions (the fake worker's hello)
    assert clean["arms"][1]["environment"]["executable"] == "/fake/bin/python"
    assert clean["arms"][1]["environment"]["torch"] == "0.0.0+fake"

    (repo / "models" / "net.py").write_text("# a model, edited\n")
    edited = _profiled(repo / "models" / "net.py", tmp_path)
    assert edited["provenance"]["git"]["dirty"] is True
    assert edited["provenance"]["git"]["commit"] == head
    # the same file, arms and sizes: one series whatever the edit
    assert edited["series"]["key"] == clean["series"]["key"]

    folder, problem = save_session(edited, tmp_path / "session")
    assert problem is None
    opened = load(folder)
    assert opened.provenance.short == head[:7] and opened.provenance.branch == "trunk"
    assert opened.provenance.dirty is True and opened.provenance.file == "models/net.py"
    assert opened.provenance.torch == "0.0.0+fake"
    assert opened.series is not None and opened.series.key == clean["series"]["key"]


@needs_git
def test_untracked_files_elsewhere_are_not_dirt_but_an_untracked_model_is(repo):
    (repo / "tcprof-sessions").mkdir()
    (repo / "tcprof-sessions" / "session.json").write_text("{}")
    assert git_facts(repo / "models" / "net.py")["dirty"] is False
    (repo / "models" / "new.py").write_text("# not committed\n")
    assert git_facts(repo / "models" / "new.py")["dirty"] is True


@needs_git
def test_a_detached_head_has_no_branch(repo):
    _git(repo, "checkout", "-q", "--detach")
    facts = git_facts(repo / "models" / "net.py")
    assert facts["branch"] is None and facts["dirty"] is False


def test_outside_a_repository_nothing_is_recorded_and_nothing_fails(tmp_path):
    model = tmp_path / "alone" / "net.py"
    model.parent.mkdir()
    model.write_text("# a model\n")
    session = _profiled(model, tmp_path)
    assert session["status"] == "completed"
    assert session["provenance"]["git"] is None
    assert session["series"]["parts"]["file"] == str(model)  # absolute outside a repository
    assert git_facts(tmp_path / "no" / "such" / "file.py") is None


@needs_git
def test_without_a_git_binary_the_commit_and_branch_are_read_from_dot_git(repo, monkeypatch):
    head = _git(repo, "rev-parse", "HEAD")
    _git(repo, "pack-refs", "--all")  # the branch's ref only in packed-refs
    monkeypatch.setenv("PATH", "/nonexistent")
    facts = git_facts(repo / "models" / "net.py")
    assert facts is not None
    assert (facts["commit"], facts["branch"], facts["dirty"]) == (head, "trunk", None)


@needs_git
def test_a_worktree_reads_its_own_head(repo, tmp_path, monkeypatch):
    _git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    head = _git(repo, "rev-parse", "HEAD")
    monkeypatch.setenv("PATH", "/nonexistent")  # the .git file followed by hand
    facts = git_facts(tmp_path / "side" / "models" / "net.py")
    assert facts is not None and facts["branch"] == "side"
    assert facts["commit"] == head
