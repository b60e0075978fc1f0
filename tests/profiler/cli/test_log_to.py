"""`tcprof run --log-to` and `tcprof log-to`: the specs checked before a run starts (one line,
exit 2, no folder made), a missing extra named with what installs it, a tracker that fails a
warning while the run's exit code and its saved session stay as they were."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tcprof.profiler.cli.main import build_parser
from tests.support.cli import FAST
from tests.support.mlflow_server import free_port
from tests.support.tensorboard_read import accumulator, series

pytestmark = [pytest.mark.tracker, pytest.mark.timeout(240)]
FAIL_FAST = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": "0", "MLFLOW_HTTP_REQUEST_TIMEOUT": "3"}


def _tcprof(args: list[str], *, blocked: str | None = None, env: dict | None = None):
    """The real command line in a subprocess; `blocked`: a library made unimportable."""
    block = f"sys.modules[{blocked!r}] = None; " if blocked else ""
    code = (
        f"import sys; {block}from tcprof.profiler.cli.main import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=200,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def run_logged(tmp_path_factory):
    """One real `tcprof run --json` logged to TensorBoard and to an MLflow server nothing
    answers on: (its output folder, the TensorBoard folder, the finished process, the URI)."""
    root = tmp_path_factory.mktemp("cli_log_to")
    out, tb = root / "session", root / "tb"
    uri = f"http://127.0.0.1:{free_port()}"
    args = ["run", "--example", "simple", "--arms", "eager", "--batch-sizes", "8", *FAST]
    args += ["--out", str(out), "--json", "--log-to", f"tensorboard:{tb}"]
    args += ["--log-to", f"mlflow:{uri}", "--mlflow-experiment", "cli"]
    done = _tcprof(args, env=FAIL_FAST)
    return out, tb, done, uri


def test_run_logs_after_saving_and_a_failing_tracker_keeps_the_exit_code(run_logged):
    out, tb, done, uri = run_logged
    assert done.returncode == 0, done.stderr  # the run's own exit code
    session = json.loads((out / "session.json").read_text())
    assert json.loads(done.stdout)["status"] == session["status"]  # stdout is the JSON alone
    lines = done.stderr.splitlines()
    assert f"tcprof: logged to TensorBoard: {tb / out.name} (tensorboard --logdir {tb})" in lines
    warned = [line for line in lines if line.startswith("tcprof: warning: could not log to")]
    assert warned == [
        f"tcprof: warning: could not log to mlflow:{uri}: ConnectionError: cannot reach the "
        f"MLflow server at {uri} (Connection refused)"
    ]
    assert f"tcprof: the session is saved in {out}; log it again with tcprof log-to" in lines
    steps = series(accumulator(tb / out.name / "eager"), "step_ms/bs8")
    assert len(steps) == session["arms"][0]["results"][0]["steps"]


def test_log_to_an_existing_session(run_logged, tmp_path):
    out, _tb, _done, _uri = run_logged
    done = _tcprof(["log-to", f"tensorboard:{tmp_path}", str(out / "session.json")])
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"tcprof: logged to TensorBoard: {tmp_path / out.name} (tensorboard --logdir {tmp_path})"
    ]
    assert (tmp_path / out.name / "eager").is_dir()


def test_log_to_exits_1_when_a_tracker_fails_and_2_without_a_session(run_logged, tmp_path):
    out, _tb, _done, _uri = run_logged
    blocked = tmp_path / "file"
    blocked.write_text("")
    done = _tcprof(["log-to", f"tensorboard:{blocked}", str(out)])
    assert done.returncode == 1
    assert done.stderr.startswith(f"tcprof: warning: could not log to tensorboard:{blocked}: ")
    done = _tcprof(["log-to", "tensorboard", str(tmp_path)])
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"tcprof: error: cannot read session: session file not found: {tmp_path}/events.jsonl"
    )


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--log-to", "neptune"], "--log-to 'neptune': unknown tracker 'neptune'; give "),
        (["--log-to", "tensorboard:"], "a folder after tensorboard:, or tensorboard alone"),
        (["--log-to", "mlflow"], "--log-to mlflow needs a tracking URI: mlflow:URI, or set "),
        (["--mlflow-experiment", "x"], "--mlflow-experiment needs --log-to mlflow"),
    ],
)
def test_bad_tracker_options_stop_before_the_run(tmp_path, options, says):
    out = tmp_path / "out"
    env = {"MLFLOW_TRACKING_URI": ""}  # mlflow alone has no URI to go to
    done = _tcprof(["run", "--example", "simple", *FAST, "--out", str(out), *options], env=env)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("tcprof: error: ") and says in line
    assert not out.exists()  # nothing ran, no folder made


@pytest.mark.parametrize("kind", ["tensorboard", "mlflow"])
def test_a_missing_extra_says_what_to_install(tmp_path, kind):
    out = tmp_path / "out"
    spec = f"{kind}:{tmp_path}" if kind == "tensorboard" else "mlflow:http://127.0.0.1:1"
    done = _tcprof(
        ["run", "--example", "simple", "--out", str(out), "--log-to", spec], blocked=kind
    )
    assert done.returncode == 2
    line = f"tcprof: error: --log-to {kind} needs the {kind} package: pip install tcprof[{kind}]"
    assert done.stderr.splitlines() == [line]
    assert not out.exists()
    done = _tcprof(["log-to", spec, str(tmp_path)], blocked=kind)
    assert (done.returncode, done.stderr.splitlines()) == (2, [line])


def test_the_tracker_options_are_in_the_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    run_help = sub.choices["run"].format_help()
    assert "--log-to SPEC" in run_help and "--mlflow-experiment NAME" in run_help
    assert "tensorboard[:DIR]" in run_help and "pip install" in run_help
    log_help = sub.choices["log-to"].format_help()
    assert "SPEC [SPEC ...] session" in log_help
    assert "log-to" in parser.format_help()
