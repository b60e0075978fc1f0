"""`tcprof run [options] -- python train.py ARGS`: the command after `--`, found without running
it, and the phases its placeholders make."""

from __future__ import annotations

import pytest

from tcprof.profiler.cli.main import build_parser
from tcprof.profiler.config import ConfigError
from tcprof.profiler.recording.options import config_from_options
from tcprof.profiler.recording.script_args import split_command


def _config(argv: list[str], cwd, monkeypatch):
    monkeypatch.chdir(cwd)
    own, command = split_command(["run", *argv])
    args = build_parser().parse_args(own)
    args.script_command = command
    return config_from_options(vars(args))


@pytest.fixture
def project(tmp_path):
    (tmp_path / "train.py").write_text("print('never run by the engine')\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("raise SystemExit('imported')\n")
    (tmp_path / "pkg" / "train.py").write_text("")
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__main__.py").write_text("")
    return tmp_path


def test_everything_after_the_first_double_dash_is_the_script_command():
    own, command = split_command(["run", "--steps", "4", "--", "python", "t.py", "--", "x"])
    assert own == ["run", "--steps", "4"] and command == ["python", "t.py", "--", "x"]
    assert split_command(["report", "--", "x"]) == (["report", "--", "x"], None)


def test_a_script_file_with_its_arguments(project, monkeypatch):
    cfg = _config(
        ["--arms", "eager,aot_eager", "--", "python3", "-u", "train.py", "--lr=3e-4"],
        project,
        monkeypatch,
    )
    assert cfg.script is not None
    assert cfg.script.path == str(project / "train.py") and cfg.script.args == ("--lr=3e-4",)
    assert cfg.script.python == "python3" and cfg.script.cwd == str(project)
    assert cfg.source.path == cfg.script.path and cfg.batch_sizes == (1,)


def test_python_dash_m_finds_the_module_without_importing_its_package(project, monkeypatch):
    cfg = _config(["--", "python", "-m", "pkg.train", "--x=1"], project, monkeypatch)
    assert cfg.script is not None and cfg.script.module == "pkg.train"
    assert cfg.script.path == str(project / "pkg" / "train.py")  # pkg/__init__ never ran
    main = _config(["--", "python", "-m", "tool"], project, monkeypatch)
    assert main.script is not None and main.script.path == str(project / "tool" / "__main__.py")


def test_a_sweep_makes_the_phases_and_batch_size_takes_batch_sizes(project, monkeypatch):
    cfg = _config(
        ["--sweep", "seq=64,128", "--", "python", "train.py", "--block={seq}"], project, monkeypatch
    )
    assert cfg.batch_sizes == (64, 128) and cfg.script is not None and cfg.script.sweep == "seq"
    cfg = _config(
        ["--batch-sizes", "8,16", "--", "python", "train.py", "--bs={batch_size}"],
        project,
        monkeypatch,
    )
    assert (
        cfg.batch_sizes == (8, 16) and cfg.script is not None and cfg.script.sweep == "batch_size"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--", "python", "missing.py"], "no such script: missing.py"),
        (["--", "python", "-c", "print(1)"], "-c runs a command, not a script"),
        (["--", "bash", "train.sh"], "tcprof runs Python scripts"),
        (["--", "python", "-m", "nowhere.mod"], "no module nowhere.mod under"),
        (["--"], "nothing after --"),
        (
            ["--batch-sizes", "8,16", "--", "python", "train.py"],
            r"--batch-sizes fills \{batch_size\}",
        ),
        (
            ["--sweep", "lr=0.1,0.01", "--", "python", "train.py", "--lr={lr}"],
            "--sweep lr: '0.1' is not a positive integer; a sweep's values are whole numbers",
        ),
        (["--sweep", "n=2,2", "--", "python", "train.py", "--n={n}"], "--sweep n: batch size 2"),
        (
            ["--min-block-ms", "50", "--", "python", "train.py"],
            "--min-block-ms adds steps to a model file's blocks; a script's blocks are exactly",
        ),
        (["model.py", "--", "python", "train.py"], "not both"),
        (["train.py", "--sweep", "n=1,2"], "--sweep applies to a script"),
        (["train.py", "--step-on", "forward"], "--step-on applies to a script"),
    ],
)
def test_a_command_that_names_no_runnable_script_or_an_option_it_cannot_take_is_an_error(
    project, monkeypatch, argv, message
):
    with pytest.raises(ConfigError, match=message):
        _config(argv, project, monkeypatch)


def test_a_script_takes_nproc_and_host(project, monkeypatch):
    cfg = _config(
        ["--nproc", "2", "--host", "gpu-box", "--min-block-ms", "0", "--", "python", "train.py"],
        project,
        monkeypatch,
    )
    assert (cfg.nproc, cfg.parallel, cfg.host, cfg.min_block_ms) == (2, "torchrun", "gpu-box", 0)


def test_unit_overrides_what_a_scripts_throughput_counts(project, monkeypatch):
    from tcprof.profiler.api import options

    cfg = _config(["--unit", "tokens", "--", "python", "train.py"], project, monkeypatch)
    assert cfg.script is not None and cfg.script.unit == "tokens"
    assert _config(["--", "python", "train.py"], project, monkeypatch).script.unit is None
    with pytest.raises(ConfigError, match="--unit applies to a script"):
        _config(["--example", "simple", "--unit", "samples"], project, monkeypatch)
    with pytest.raises(SystemExit):  # argparse: not one of samples, tokens, steps
        _config(["--unit", "words", "--", "python", "train.py"], project, monkeypatch)
    assert options.run_options()["unit"].choices == ("samples", "tokens", "steps")
