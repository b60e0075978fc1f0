"""tcprof.run's keywords are `tcprof run`'s options (one declaration: the CLI's), and what the
CLI refuses, tcprof.run refuses with the same line, before any folder or worker exists."""

from __future__ import annotations

import inspect
import threading

import pytest

import tcprof
from tcprof.profiler.api import options
from tcprof.profiler.cli.main import build_parser
from tcprof.profiler.config import examples
from tcprof.profiler.folders import home as paths

SIMPLE = str(examples.example_path("simple"))


def _cli_options():
    run = build_parser()._subparsers._group_actions[0].choices["run"]
    return {a.dest: a.default for a in run._actions if a.option_strings and a.dest != "help"}


def test_every_cli_option_is_a_keyword_with_its_default():
    cli = _cli_options()
    keywords = {o.dest: o for o in options.run_options().values()}
    assert set(keywords) == set(cli)
    assert {d: o.default for d, o in keywords.items()} == cli
    assert options.run_options()["model_name"].flag == "--model", "the one renamed option"
    params = inspect.signature(tcprof.run).parameters
    for option in options.run_options().values():
        assert params[option.keyword].default == option.default
        assert params[option.keyword].kind is inspect.Parameter.KEYWORD_ONLY
    assert "steps = 50: measured steps per batch size" in tcprof.run.__doc__


def test_keywords_are_checked_to_what_the_cli_parses():
    values = options.checked(
        {
            "steps": 6,
            "no_accuracy": True,
            "fullgraph": False,
            "control": True,
            "lr": 0.001,
            "ladder": "",
            "log_to": "tensorboard",
        },
        SIMPLE,
    )
    argv = [SIMPLE, "--steps=6", "--no-accuracy", "--control", "--lr=0.001", "--ladder="]
    assert values == options.parse([*argv, "--log-to", "tensorboard"])


@pytest.fixture
def no_folder_made(private_home):
    """The checks come before the run's folder: none is made when one fails."""
    yield
    root = paths.sessions_dir()
    assert not root.exists() or not any(root.iterdir()), list(root.iterdir())


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"steps": "many"}, "argument --steps: invalid int value: 'many'"),
        ({"steps": 0}, "--steps must be at least 1"),
        ({"device": "tpu"}, "argument --device: invalid choice: 'tpu'"),
        ({"batch_sizes": "8,8"}, "batch size 8 is listed twice"),
        ({"arms": "eager; inductor:mode=fast"}, "unknown mode 'fast'"),
        ({"no_accuracy": "yes"}, "argument --no-accuracy: is True or False, not 'yes'"),
        ({"steps": [1]}, "argument --steps: takes a value, not [1]"),
        ({"arms": "eager", "ladder": True}, "give --arms or --ladder, not both"),
        ({"node_rank": 1, "nnodes": 2, "parallel": "ddp", "rdzv_endpoint": "h:1"}, "node_rank"),
        ({"mlflow_experiment": "nightly"}, "--mlflow-experiment needs --log-to mlflow"),
        ({"log_to": ["tensorboard", "elsewhere"]}, "elsewhere"),
    ],
)
def test_a_bad_value_is_the_clis_one_line(keywords, message, no_folder_made):
    with pytest.raises(ValueError) as caught:
        tcprof.run(SIMPLE, **keywords)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_the_model_is_a_file_or_an_example_or_a_python_object(no_folder_made):
    with pytest.raises(ValueError, match=r"give a model file or --example NAME \(one of them\)"):
        tcprof.run()
    with pytest.raises(TypeError, match="model= is a file, a class or a callable, not int"):
        tcprof.run(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'stepz' \(did you mean"):
        tcprof.run(SIMPLE, stepz=3)
    with pytest.raises(ValueError, match="make_batch= goes with a model given as a class"):
        tcprof.run(SIMPLE, make_batch=lambda bs, device: None)
    with pytest.raises(ValueError, match="model_name= and factory= choose a model in a file"):
        tcprof.run(lambda: None, model_name="Net")
    with pytest.raises(ValueError, match="as a Python object or as a file, not both"):
        tcprof.run(lambda: None, example="simple")
    with pytest.raises(ValueError, match="--host and --nnodes need a model file"):
        tcprof.run(lambda: None, host="gpu-box")
    with pytest.raises(ValueError, match="progress= is True, False or a callable, not 'yes'"):
        tcprof.run(SIMPLE, progress="yes")  # type: ignore[arg-type]


def test_an_out_folder_that_holds_an_earlier_run_is_refused_unless_forced(tmp_path):
    (tmp_path / "session.json").write_text("{}")
    with pytest.raises(OSError, match="holds an earlier run .*add --force to replace it"):
        tcprof.run(SIMPLE, out=tmp_path)
    assert (tmp_path / "session.json").read_text() == "{}", "nothing replaced"


def test_a_model_that_cannot_travel_says_what_cannot_be_shipped(no_folder_made):
    lock = threading.Lock()

    def holds_a_lock():
        return lock

    with pytest.raises(ValueError) as caught:
        tcprof.run(holds_a_lock, arms="eager")
    text = str(caught.value)
    assert text.startswith("cannot ship holds_a_lock to the workers (TypeError: cannot pickle")
    assert text.endswith(tcprof.CANNOT_SHIP) and "\n" not in text


def test_a_module_instance_is_shipped_as_copies_of_itself():
    import pickle

    import torch.nn as nn

    from tcprof.profiler.api.shipping import is_module_instance, pack

    layer = nn.Linear(2, 3)
    assert is_module_instance(layer) and not is_module_instance(nn.Linear)
    shipment = pack(layer)
    payload = pickle.loads(shipment.data)
    assert shipment.name == payload["name"] == "Linear"
    first, second = payload["make_model"](), payload["make_model"]()
    assert first is not second and isinstance(first, nn.Linear)
    assert first.weight.tolist() == layer.weight.tolist(), "its weights travel with it"
