"""Arms on a remote host over ssh (`--host`): one real run through a real `sshd` that the test
starts on 127.0.0.1 with throw-away keys, and the failures against a stand-in for ssh
(ssh_shim.py through TCPROF_SSH_COMMAND): a host that refuses the connection, a python without
tcprof or torch, a connection that drops mid-run, and Stop during a compile. No remote process
may outlive any of them."""

from __future__ import annotations

import getpass
import json
import os
import queue
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
from pathlib import Path

import psutil
import pytest

from tcprof.profiler.config import ArmSpec, ConfigError, ModelSource, RunConfig
from tcprof.profiler.config.provenance import tcprof_version
from tcprof.profiler.protocol.events import PROTOCOL_VERSION
from tcprof.profiler.remote import transfer
from tcprof.profiler.remote.agent import here, remove_cache, there
from tcprof.profiler.remote.frames import PLACEHOLDER
from tcprof.profiler.remote.ssh import (
    CONNECT_TIMEOUT_S,
    SSH_COMMAND_ENV,
    connect_failure,
    install_hint,
    ssh_argv,
)
from tcprof.profiler.remote.transfer import PathMap, TooManyFiles, model_files
from tcprof.profiler.remote.worker import RemoteWorker, hello_problem, start_remote_worker
from tcprof.profiler.run.runner import Runner
from tests.support.cli import arm, fast_args, run_cli
from tests.support.paths import ROOT, SSH_SHIM

pytestmark = pytest.mark.ssh


SHIM = SSH_SHIM
# The "remote" interpreter: this one, with this checkout's engine, as a remote venv would have.
REMOTE_PYTHON = f"env PYTHONPATH={shlex.quote(str(ROOT))} {shlex.quote(sys.executable)}"
GONE_WITHIN_S = 10.0
QUICK = fast_args(warmup=0, steps=2, blocks=1)


def _model(folder: Path, forward: str = "return self.fc(x)") -> Path:
    """A model that imports a helper beside it (which must travel with it)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model_parts.py").write_text("WIDTH = 4\n")
    path = folder / "model.py"
    path.write_text(
        textwrap.dedent(
            f"""\
            import time
            import torch.nn as nn
            from model_parts import WIDTH


            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(WIDTH, 1)

                def forward(self, x):
                    {forward}
            """
        )
    )
    return path


def _config(model: Path, **kw) -> RunConfig:
    base = dict(
        source=ModelSource(str(model), input_shape="4"),
        arms=(ArmSpec("eager"),),
        batch_sizes=(2,),
        warmup=0,
        steps=2,
        blocks=1,
        replicates=1,
        min_block_ms=0,
        accuracy=False,
        host="gpu-box",
        remote_python=REMOTE_PYTHON,
    )
    return RunConfig(**{**base, **kw})


def _shim(monkeypatch, mode: str) -> None:
    monkeypatch.setenv(SSH_COMMAND_ENV, f"{shlex.quote(sys.executable)} {SHIM} {mode}")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the shim imports the frames


def _errors(session) -> list[str]:
    return [e["message"] for e in session.errors]


def _assert_gone(pids: list[int]) -> None:
    procs = []
    for pid in pids:
        try:
            procs.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            continue
    _, alive = psutil.wait_procs(procs, timeout=GONE_WITHIN_S)
    assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE], alive


# -- the parts, without a process -----------------------------------------------------------------
def test_ssh_never_waits_for_a_prompt(monkeypatch):
    monkeypatch.delenv(SSH_COMMAND_ENV, raising=False)
    argv = ssh_argv("-oProxyCommand=x", "exec python3 -m tcprof.profiler.remote.agent")
    assert (
        argv[0] == "ssh"
        and "BatchMode=yes" in argv
        and f"ConnectTimeout={CONNECT_TIMEOUT_S}" in argv
    )
    assert argv[-3:] == ["--", "-oProxyCommand=x", "exec python3 -m tcprof.profiler.remote.agent"]
    # the shell runs it with the arguments appended, as git does: printf shows them
    monkeypatch.setenv(SSH_COMMAND_ENV, "printf '%s|' ssh -F '/my configs/ssh'")
    out = subprocess.run(ssh_argv("gpu-box", "true"), capture_output=True, text=True).stdout
    assert out.startswith("ssh|-F|/my configs/ssh|-T|-o|BatchMode=yes|")
    assert out.endswith("|--|gpu-box|true|")


def test_paths_travel_under_placeholders_and_come_back(tmp_path):
    session, weights = tmp_path / "session", tmp_path / "w" / "start.pt"
    weights.parent.mkdir()
    weights.write_bytes(b"w")
    paths = PathMap(
        {
            "model": str(tmp_path / "m"),
            "session": str(session),
            "weights": str(weights.parent),
            "cache": None,
        }
    )
    command = {
        "config": {"artifacts_dir": str(session), "weights": str(weights), "lr": 0.1},
        "path": "relative",
    }
    remote = paths.to_remote(command)
    assert remote["config"]["artifacts_dir"] == f"{PLACEHOLDER}/session"  # no trailing "."
    assert remote["config"]["weights"] == f"{PLACEHOLDER}/weights/start.pt"
    assert remote["path"] == "relative" and paths.to_local(remote) == command
    assert paths.local_files(command) == [("weights/start.pt", weights)]  # folders never travel
    said = {"text": f'File "{PLACEHOLDER}/model/model.py", line 3; {PLACEHOLDER}/other/x'}
    assert (
        paths.to_local(said)["text"]
        == f'File "{tmp_path / "m"}/model.py", line 3; {PLACEHOLDER}/other/x'
    )


def test_the_model_travels_with_the_python_beside_it_within_bounds(tmp_path, monkeypatch):
    model = _model(tmp_path / "m")
    for rel in (
        "pkg/__init__.py",
        "pkg/sub/__init__.py",
        "pkg/sub/x.py",
        "data/y.py",
        ".venv/z.py",
    ):
        (model.parent / rel).parent.mkdir(parents=True, exist_ok=True)
        (model.parent / rel).write_text("")
    (model.parent / "notes.txt").write_text("")
    assert [rel for rel, _ in model_files(str(model))] == [
        "model.py",
        "model_parts.py",
        "pkg/__init__.py",
        "pkg/sub/__init__.py",
        "pkg/sub/x.py",
    ]
    monkeypatch.setattr(transfer, "MAX_MODEL_FILES", 3)
    with pytest.raises(TooManyFiles, match="more than 3 Python files"):
        model_files(str(model))


def test_what_went_wrong_before_the_worker_started_is_one_line():
    assert (
        hello_problem({"protocol": PROTOCOL_VERSION, "torch": "2.13.0"}, "gpu", "python3") is None
    )
    other = hello_problem({"protocol": 99, "tcprof": "9.0", "torch": "2.13.0"}, "gpu", "python3")
    assert other.startswith(f"gpu runs tcprof 9.0 (protocol 99), this is tcprof {tcprof_version()}")
    assert f"pip install tcprof=={tcprof_version()}" in other
    assert connect_failure("gpu", "py3.12", 127, ["sh: 1: exec: py3.12: not found"]) == (
        "gpu has no py3.12 (--remote-python): sh: 1: exec: py3.12: not found"
    )
    assert connect_failure(
        "gpu", "python3", 255, ["", "me@gpu: Permission denied (publickey)."]
    ) == ("cannot reach gpu: me@gpu: Permission denied (publickey).")


def test_the_agent_puts_its_folders_in_place_of_the_placeholders_and_back(tmp_path):
    roots = {"session": tmp_path / "s", "cache": tmp_path / "s-cache"}  # one name prefixes another
    sent = json.dumps({"TORCH_TRACE": f"{PLACEHOLDER}/session/t", "c": f"{PLACEHOLDER}/cache"})
    mine = json.loads(here(sent.encode(), roots))
    assert mine == {"TORCH_TRACE": f"{tmp_path}/s/t", "c": f"{tmp_path}/s-cache"}
    back = there(json.dumps({**mine, "x": f"{tmp_path}/sx"}).encode(), roots)
    assert json.loads(back) == {**json.loads(sent), "x": f"{tmp_path}/sx"}
    assert remove_cache("../etc") == 2 and remove_cache("tcprof-cache-gone") == 0


def test_a_host_cannot_pass_for_an_ssh_option(tmp_path):
    with pytest.raises(ConfigError, match="not a host name"):
        _config(_model(tmp_path / "m"), host="-oProxyCommand=touch x")
    with pytest.raises(ConfigError, match="--remote-python"):
        _config(_model(tmp_path / "m"), remote_python=" ")
    with pytest.raises(ConfigError, match="several nodes"):
        _config(
            _model(tmp_path / "m"),
            host="gpu-box",
            nnodes=2,
            nproc=2,
            parallel="ddp",
            rdzv_endpoint="h:29400",
        )


# -- failures, against the stand-in ----------------------------------------------------------------
def test_an_unreachable_host_is_one_line_naming_it(tmp_path, monkeypatch):
    _shim(monkeypatch, "unreachable")
    session = Runner(_config(_model(tmp_path / "m"))).run()
    assert session.status == "completed_with_errors"
    assert _errors(session) == [
        "eager: cannot reach gpu-box: ssh: connect to host gpu-box port 22: Connection refused"
    ]


def test_a_shell_that_prints_before_the_agent_is_named(tmp_path, monkeypatch):
    _shim(monkeypatch, "banner")
    session = Runner(_config(_model(tmp_path / "m"))).run()
    assert _errors(session) == [
        "eager: gpu-box printed 'Welcome to gpu-box!' before tcprof's agent started: make the "
        "remote shell's startup files quiet when not interactive"
    ]


@pytest.mark.parametrize(
    ("python", "missing"),
    [
        (f"{shlex.quote(sys.executable)} -I -S", "tcprof"),  # no site-packages, no checkout
        (f"env PYTHONPATH={shlex.quote(str(ROOT))} {shlex.quote(sys.executable)} -S", "torch"),
    ],
    ids=["tcprof", "torch"],
)
def test_a_missing_install_says_what_to_install(tmp_path, monkeypatch, python, missing):
    _shim(monkeypatch, "local")
    session = Runner(_config(_model(tmp_path / "m"), remote_python=python)).run()
    assert _errors(session) == [
        f"eager: {missing} is not installed for {python} on gpu-box: {install_hint()}"
    ]
    assert install_hint().startswith(f"pip install tcprof=={tcprof_version()} (and torch==")


def test_a_dropped_connection_keeps_what_was_measured(tmp_path, monkeypatch):
    _shim(monkeypatch, "drop:8")
    config = _config(_model(tmp_path / "m"), batch_sizes=(2, 8))
    handles: list[RemoteWorker] = []

    def factory(index: int, inbox: queue.Queue, env: dict[str, str]) -> RemoteWorker:
        handles.append(start_remote_worker(config, index, inbox, env, 0, None))
        return handles[-1]

    session = Runner(config, worker_factory=factory).run()
    (message,) = _errors(session)
    assert message == (
        "eager: lost the connection to gpu-box during the 'prepare' command at batch size 8: "
        "client_loop: send disconnect: Broken pipe"
    )
    results = session.to_dict()["arms"][0]["results"]
    assert [(r["batch_size"], r["status"]) for r in results][0] == (2, "ok")
    _assert_gone(handles[0].remote_pids)  # the agent saw its stream end and ended its worker
    assert not Path(handles[0].hello["folder"]).exists()


def test_stop_during_a_compile_leaves_no_remote_process(tmp_path, monkeypatch):
    _shim(monkeypatch, "local")
    # A fresh remote worker, so its CPU time includes torch's import (a forked one's does not).
    monkeypatch.setenv("TCPROF_FORK_WORKERS", "0")
    model = _model(tmp_path / "m", forward="time.sleep(300)")
    config = _config(model, arms=(ArmSpec("aot_eager"),))
    inbox: queue.Queue = queue.Queue()
    worker = start_remote_worker(config, 0, inbox, {}, 0, None)
    worker.send({"cmd": "load", "config": config.to_dict(), "arm_index": 0})
    worker.send({"cmd": "prepare", "batch_size": 2})
    while (event := inbox.get(timeout=60)[1]).get("phase") != "compiling":
        assert event["type"] not in ("error", "_eof"), event
    pids = list(worker.remote_pids)
    assert len(pids) == 2 and all(psutil.pid_exists(p) for p in pids)
    # The stall timeout's progress is the remote worker's CPU, which the agent reports on asking.
    for _ in range(200):  # its answer comes within 10 s
        if (cpu := worker.cpu_time(worker.pid)) is not None:
            break
        threading.Event().wait(0.05)
    assert cpu > 0.5  # torch's import and the compile so far: far beyond the local ssh's
    worker.stop()
    _assert_gone(pids)
    assert not Path(worker.hello["folder"]).exists()
    assert worker.classify_exit()["status"] == "stopped"


# -- a real sshd -----------------------------------------------------------------------------------
@pytest.fixture
def sshd(tmp_path):
    """An sshd on 127.0.0.1 as this user with throw-away keys, and an ssh config naming it."""
    daemon = shutil.which("sshd") or next(
        (p for p in ("/usr/sbin/sshd", "/usr/local/sbin/sshd") if os.access(p, os.X_OK)), None
    )
    if daemon is None:
        pytest.skip("sshd is not installed (apt-get install openssh-server)")
    keys = tmp_path / "ssh"
    keys.mkdir(mode=0o700)
    for name in ("host_key", "id"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)], check=True
        )
    (keys / "authorized_keys").write_text((keys / "id.pub").read_text())
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (keys / "sshd_config").write_text(
        textwrap.dedent(
            f"""\
            ListenAddress 127.0.0.1
            Port {port}
            HostKey {keys / "host_key"}
            AuthorizedKeysFile {keys / "authorized_keys"}
            PidFile {keys / "sshd.pid"}
            StrictModes no
            UsePAM no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password
            """
        )
    )
    host_key = (keys / "host_key.pub").read_text().split()[:2]
    (keys / "known_hosts").write_text(f"[127.0.0.1]:{port} {' '.join(host_key)}\n")
    (keys / "ssh_config").write_text(
        textwrap.dedent(
            f"""\
            Host test-gpu-box
                HostName 127.0.0.1
                Port {port}
                User {getpass.getuser()}
                IdentityFile {keys / "id"}
                IdentitiesOnly yes
                UserKnownHostsFile {keys / "known_hosts"}
                StrictHostKeyChecking yes
            """
        )
    )
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(exist_ok=True)  # its privilege separation folder
    proc = subprocess.Popen(
        [daemon, "-D", "-e", "-f", str(keys / "sshd_config")],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        said = []
        while (line := proc.stderr.readline()) and "Server listening" not in line:
            said.append(line.strip())  # sshd ends (EOF) when it cannot start
        if not line:
            pytest.skip(f"sshd did not start: {' '.join(said)}")
        yield f"ssh -F {keys / 'ssh_config'}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_run_on_a_remote_host_over_real_ssh(tmp_path, monkeypatch, sshd):
    monkeypatch.setenv(SSH_COMMAND_ENV, sshd)
    model = _model(tmp_path / "m")
    python = tmp_path / "remote-python"  # a login shell over ssh has no PYTHONPATH of ours
    python.write_text(f'#!/bin/sh\nexec {REMOTE_PYTHON} "$@"\n')
    python.chmod(0o755)
    import torch

    weights = tmp_path / "w" / "start.pt"  # in a folder of its own: it travels by itself
    weights.parent.mkdir()
    torch.save({"fc.weight": torch.ones(1, 4), "fc.bias": torch.zeros(1)}, weights)
    out = tmp_path / "session"
    folders_before = set(Path(tempfile.gettempdir()).glob("tcprof-remote-*"))
    code, stdout, stderr, session = run_cli(
        [
            str(model),
            "--input-shape",
            "4",
            "--arms",
            "eager,aot_eager",
            "--batch-sizes",
            "2",
            *QUICK,
            "--no-accuracy",
            "--weights",
            str(weights),
            "--save-weights",
            "pt",
            "--trace",
            "--host",
            "test-gpu-box",
            "--remote-python",
            str(python),
        ],
        out,
    )
    assert code == 0, stderr
    assert session["config"]["host"] == "test-gpu-box"
    for name in ("eager", "aot_eager"):
        (result,) = arm(session, name)["results"]
        assert result["status"] == "ok" and result["median_ms"] > 0
    saved = list((out / "artifacts").rglob("*.pt"))
    assert len(saved) == 2, saved  # each arm's trained weights, back in the session folder
    assert list((out / "artifacts").glob("1-aot_eager/trace/*.log"))  # TORCH_TRACE's log too
    # the agents removed their folders
    assert set(Path(tempfile.gettempdir()).glob("tcprof-remote-*")) <= folders_before
