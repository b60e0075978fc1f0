"""A script on a remote host (`tcprof run --host H -- python train.py ARGS`): its folder travels
by a model file's rules, its working directory's Python and the files its arguments name too,
and the paths of its command read as the agent's folders there. The parts without a process,
then one run through the stand-in for ssh (ssh_shim.py), and one through a real sshd where one
is installed."""

from __future__ import annotations

import shlex
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig, ScriptSource
from tcprof.profiler.remote import transfer
from tcprof.profiler.remote.frames import PLACEHOLDER
from tcprof.profiler.remote.ssh import SSH_COMMAND_ENV
from tcprof.profiler.remote.transfer import PathMap, TooManyFiles, script_roots, sent_files
from tests.profiler.remote.test_remote import REMOTE_PYTHON, sshd  # noqa: F401 (a fixture)
from tests.support.paths import SSH_SHIM
from tests.support.script_cli import SHORT, arm, run_script

pytestmark = pytest.mark.ssh


def _files(root: Path, rels: dict[str, str]) -> None:
    for rel, text in rels.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _paths(script: ScriptSource, session: Path) -> PathMap:
    return PathMap({"session": str(session), "cache": None, **script_roots(script)})


def _names(sent: list[tuple[str, Path]]) -> list[str]:
    return [name for name, _ in sent]


def test_a_script_run_from_its_folder_sends_its_python_and_the_files_its_arguments_name(
    tmp_path, monkeypatch
):
    folder = tmp_path / "gpt"
    _files(
        folder,
        {
            "train.py": "",
            "model.py": "",
            "config/train_tiny.py": "batch_size = 4\n",  # no package: travels as an argument
            "config/other.py": "",
            "data/tokens.bin": "0123456789",
            "notes.txt": "",
        },
    )
    args = ("config/train_tiny.py", "--data=data/tokens.bin", "--out_dir=out", "--lr=0.1")
    script = ScriptSource(path=str(folder / "train.py"), args=args, cwd=str(folder))
    paths = _paths(script, tmp_path / "session")
    assert "cwd" not in paths.roots  # the working directory is the script's folder
    assert _names(sent_files(script.path, script, paths)) == [
        "model/model.py",
        "model/train.py",
        "model/config/train_tiny.py",
        "model/data/tokens.bin",
    ]
    monkeypatch.setattr(transfer, "MAX_MODEL_BYTES", 20)
    with pytest.raises(TooManyFiles, match=r"arguments name .*tokens.bin, and with it more than"):
        sent_files(script.path, script, paths)


def test_a_working_directory_of_its_own_travels_and_the_command_reads_as_the_agents(tmp_path):
    project = tmp_path / "project"
    _files(
        project,
        {
            "sub/train.py": "",
            "pkg/__init__.py": "",
            "pkg/util.py": "",
            "setup.cfg": "",
            "scratch/x.py": "",  # not a package: not what `import` finds there
        },
    )
    script = ScriptSource(path=str(project / "sub" / "train.py"), args=("--n=1",), cwd=str(project))
    session = tmp_path / "session"
    paths = _paths(script, session)
    assert _names(sent_files(script.path, script, paths)) == [
        "model/train.py",
        "cwd/pkg/__init__.py",
        "cwd/pkg/util.py",
    ]
    config = RunConfig(
        source=ModelSource(path=script.path),
        script=script,
        arms=(ArmSpec("eager"),),
        host="gpu-box",
        artifacts_dir=str(session),
    )
    load = paths.to_remote({"cmd": "load", "config": config.to_dict(), "arm_index": 0})
    remote = load["config"]["script"]
    assert remote["path"] == f"{PLACEHOLDER}/model/train.py"
    assert remote["cwd"] == f"{PLACEHOLDER}/cwd" and remote["args"] == ["--n=1"]
    assert load["config"]["artifacts_dir"] == f"{PLACEHOLDER}/session"
    assert paths.to_local(load)["config"] == config.to_dict()


def test_python_m_sends_the_package_from_the_working_directory(tmp_path):
    _files(tmp_path, {"pkg/__init__.py": "", "pkg/train.py": "", "pkg/data.py": ""})
    script = ScriptSource(
        path=str(tmp_path / "pkg" / "train.py"), module="pkg.train", cwd=str(tmp_path)
    )
    names = _names(sent_files(script.path, script, _paths(script, tmp_path / "s")))
    assert {"cwd/pkg/__init__.py", "cwd/pkg/train.py", "cwd/pkg/data.py"} <= set(names)


def _remote_script(folder: Path) -> Path:
    """A script that reads the configuration file its argument names, imports a helper beside
    it, and fails unless it runs in the agent's copy of its folder (a file that is not Python
    and not named stays here)."""
    _files(
        folder,
        {
            "helper.py": "WIDTH = 6\n",
            "settings/small.py": "steps = 40\n",
            "only_here.txt": "not sent\n",
            "train.py": textwrap.dedent(
                """\
                import os, sys
                import torch
                from helper import WIDTH

                assert not os.path.exists("only_here.txt"), "ran in the local folder"
                settings = {}
                exec(open(sys.argv[1]).read(), settings)
                model = torch.nn.Linear(WIDTH, 1)
                opt = torch.optim.SGD(model.parameters(), lr=0.01)
                for step in range(settings["steps"]):
                    loss = model(torch.randn(4, WIDTH)).pow(2).mean()
                    loss.backward()
                    opt.step()
                    opt.zero_grad()
                torch.save(model.state_dict(), "last.pt")
                """
            ),
        },
    )
    return folder / "train.py"


def _remote_run(
    tmp_path: Path, host: str = "gpu-box", python: str = REMOTE_PYTHON
) -> tuple[int, str, dict | None]:
    script = _remote_script(tmp_path / "proj")
    options = ["--arms", "eager", "--no-accuracy", *SHORT, "--host", host]
    options += ["--remote-python", python]
    before = set(Path(tempfile.gettempdir()).glob("tcprof-remote-*"))
    code, _, stderr, session = run_script(
        options, ["python", "train.py", "settings/small.py"], tmp_path / "out", cwd=script.parent
    )
    assert set(Path(tempfile.gettempdir()).glob("tcprof-remote-*")) <= before  # removed there
    return code, stderr, session


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_script_runs_on_the_host_in_the_agents_copy_of_its_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(SSH_COMMAND_ENV, f"{shlex.quote(sys.executable)} {SSH_SHIM} local")
    code, stderr, session = _remote_run(tmp_path)
    assert code == 0, stderr[-3000:]
    assert session["config"]["host"] == "gpu-box"
    (row,) = arm(session, "eager")["results"]
    assert row["status"] == "ok" and row["steps"] == 4
    assert row["script"]["own_median_ms"] is not None


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_script_on_a_remote_host_over_real_ssh(tmp_path, monkeypatch, sshd):  # noqa: F811
    monkeypatch.setenv(SSH_COMMAND_ENV, sshd)
    python = tmp_path / "remote-python"  # a login shell over ssh has no PYTHONPATH of ours
    python.write_text(f'#!/bin/sh\nexec {REMOTE_PYTHON} "$@"\n')
    python.chmod(0o755)
    code, stderr, session = _remote_run(tmp_path, "test-gpu-box", str(python))
    assert code == 0, stderr[-3000:]
    assert arm(session, "eager")["results"][0]["status"] == "ok"
