"""docs/ci/tcprof-gate.yml, run: its `run:` steps' commands, read from the file, run for a push
to main and for pull requests against the shared server as the store, in a git repository of
the model, with the scripted fake worker (aot_eager standing in for inductor). The gate passes on
an unchanged pull request and fails on one whose compiled arm is slower."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tcprof.profiler.config import examples
from tcprof.profiler.recording import entry
from tcprof.profiler.team_store.reading import StoreReader
from tests.profiler.team_store.conftest import fake_runner, tcprof
from tests.support.fake_worker import ArmScript

pytestmark = [pytest.mark.tracker, pytest.mark.timeout(300)]
WORKFLOW = Path(__file__).parents[3] / "docs" / "ci" / "tcprof-gate.yml"
CONDITIONS = {  # the `if:`s the recipe may use, as a runner evaluates them
    None: lambda event: True,
    "always()": lambda event: True,
    "github.event_name == 'pull_request'": lambda event: event == "pull_request",
}
FAST = ["--warmup", "1", "--steps", "6", "--blocks", "2", "--replicates", "2"]
FAST += ["--min-block-ms", "0", "--no-accuracy"]


def commands(event: str) -> list[str]:
    """The shell lines of the steps a runner would run for `event` (installs left out: the
    test's environment has tcprof), each continued line joined."""
    steps = yaml.safe_load(WORKFLOW.read_text())["jobs"]["profile"]["steps"]
    lines: list[str] = []
    for step in steps:
        condition = step.get("if")
        assert condition in CONDITIONS, f"a condition the test does not know: {condition}"
        if "run" not in step or not CONDITIONS[condition](event):
            continue
        for line in step["run"].replace("\\\n", " ").splitlines():
            if line.strip() and not line.startswith("pip install"):
                lines.append(line.strip())
    return lines


def run_job(event: str, repo: Path, run_id: int) -> list[tuple[int, str, str]]:
    """Each tcprof command of the job, run as the runner's shell would (its variables
    expanded); stops at the first that fails, as a job does."""
    os.environ["GITHUB_RUN_ID"] = str(run_id)
    results = []
    for line in commands(event):
        argv = shlex.split(os.path.expandvars(line))
        assert argv[0] == "tcprof", f"only tcprof commands run in the recipe: {line}"
        argv = [a.replace("inductor", "aot_eager") for a in argv[1:]]
        if argv[0] == "run":
            argv += FAST  # the fake worker's schedule: short, two rounds
        results.append(tcprof(*argv, cwd=repo))
        if results[-1][0] != 0:
            break
    return results


def git(repo: Path, *args: str) -> None:
    who = ["-c", "user.name=ci", "-c", "user.email=ci@example.com"]
    subprocess.run(["git", *who, *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path) -> Path:
    repo = tmp_path / "repo"
    (repo / "models").mkdir(parents=True)
    shutil.copy(examples.example_path("simple"), repo / "models" / "model.py")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "model")
    return repo


def slower_compiled(monkeypatch, compiled_ms: float) -> None:
    scripts = {0: ArmScript(10.0), 1: ArmScript(compiled_ms)}
    monkeypatch.setattr(entry, "default_runner", fake_runner(scripts))


def pull_request(repo: Path, note: str) -> None:
    """A pull request's checkout: a new commit, detached (as actions/checkout leaves it)."""
    git(repo, "checkout", "-q", "main")
    (repo / "NOTES").write_text(note)
    git(repo, "add", "NOTES")
    git(repo, "commit", "-q", "-m", note)
    git(repo, "checkout", "-q", "--detach")


def test_the_recipe_gates_a_pull_request_on_the_series_from_main(
    store, repo, tmp_path, monkeypatch
):
    monkeypatch.setenv("TCPROF_STORE", store)
    monkeypatch.setenv("RUNNER_TEMP", str(tmp_path / "runner"))
    monkeypatch.setenv("GITHUB_RUN_ATTEMPT", "1")
    monkeypatch.setenv("GITHUB_RUN_ID", "0")
    slower_compiled(monkeypatch, 5.0)

    pull_request(repo, "before main was ever profiled")
    results = run_job("pull_request", repo, 1)
    assert [r[0] for r in results] == [0, 0], results[-1][2]
    assert "nothing to compare against yet" in results[-1][2]

    git(repo, "checkout", "-q", "main")
    assert [r[0] for r in run_job("push", repo, 2)] == [0], "main is profiled, not compared"
    (main_run,) = StoreReader(store).runs(branch="main")
    assert main_run.session == "tcprof-2-1"

    pull_request(repo, "an unchanged model")
    results = run_job("pull_request", repo, 3)
    assert [r[0] for r in results] == [0, 0], results[-1][1] + results[-1][2]
    assert "tcprof-2-1" in results[-1][1], "compared with main's session"

    slower_compiled(monkeypatch, 8.0)
    pull_request(repo, "a slower compiled step")
    results = run_job("pull_request", repo, 4)
    assert [r[0] for r in results] == [0, 1], results[-1][1] + results[-1][2]
    assert len(StoreReader(store).runs()) == 4, "every pull request's session is logged"
