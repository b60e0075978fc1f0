"""A script session's reproduce command runs it as it ran: under torchrun with --nproc, on its
host with --host (and the interpreter there), and parses back into the same settings."""

from __future__ import annotations

from tcprof.profiler.cli.main import build_parser
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.recording.options import config_from_options
from tcprof.profiler.recording.script_args import split_command
from tcprof.profiler.report.script_reproduce import tcprof_command


def _session(script: str, **config: object) -> dict:
    return {
        "config": {
            "warmup": 1,
            "steps": 4,
            "accuracy": False,
            "script": {"path": script, "args": ["--lr=0.1"], "python": "python3"},
            **config,
        },
        "arms": [
            {"name": "eager", "backend": "eager"},
            {"name": "aot_eager", "backend": "aot_eager"},
        ],
    }


def test_nproc_and_host_come_back_in_the_command_and_parse_to_the_same_run(tmp_path, monkeypatch):
    train = tmp_path / "train.py"
    train.write_text("")
    session = _session(
        str(train), nproc=2, parallel="torchrun", host="gpu-box", remote_python="~/venv/bin/python"
    )
    command = tcprof_command(SessionModel.read(session))
    cut, at = command.index("--"), command.index("--nproc")
    assert at < cut and command[at : at + 6] == [
        "--nproc",
        "2",
        "--host",
        "gpu-box",
        "--remote-python",
        "~/venv/bin/python",
    ]
    assert command[cut:] == ["--", "python3", str(train), "--lr=0.1"]
    monkeypatch.chdir(tmp_path)
    own, script = split_command(command[1:])
    args = build_parser().parse_args(own)
    args.script_command = script
    config = config_from_options(vars(args))
    assert (config.nproc, config.parallel, config.host) == (2, "torchrun", "gpu-box")
    assert config.remote_python == "~/venv/bin/python" and config.warmup == 1


def test_one_local_process_adds_nothing():
    command = tcprof_command(
        SessionModel.read(_session("/s/train.py", nproc=1, host=None, device="cpu"))
    )
    assert not {"--nproc", "--host", "--device"} & set(command)
