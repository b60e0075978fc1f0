"""tcprof.run on real workers: its session.json equals the CLI's for the same arguments (bar
timestamps, paths and what is measured), a class defined in a script's __main__ is shipped to
the workers, and an interrupt from the progress callback keeps what was measured."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

import tcprof
from tcprof.profiler.config import PICKLED_MODEL_FILE, examples
from tcprof.profiler.folders.files import read_session
from tcprof.profiler.report.reproduce import render_reproducer
from tests.profiler.report.test_reproduce import LOSS, run_script
from tests.support.cli import fast_args, run_cli
from tests.support.processes import worker_processes

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

SIMPLE = str(examples.example_path("simple"))
ARMS = "eager,aot_eager"
FAST = {"warmup": 1, "steps": 6, "blocks": 2, "replicates": 1, "min_block_ms": 0}

# What differs between two runs of the same arguments: when, where, which process, and what
# was measured (times, memory, compile cost and what follows from them).
WHEN_WHERE = {"started_at", "ended_at", "wall_time", "t", "pid", "ppid"}
WHEN_WHERE |= {
    "path",
    "artifacts_dir",
    "cache_dir",
    "timeline",
}  # the timeline: how long each part took
MEASURED_PREFIXES = ("median", "p10", "p90", "mean", "iqr", "first_step", "samples_per_s")
MEASURED_PREFIXES += ("speedup", "compile", "break_even", "steady", "peak", "memory", "rss")
MEASURED_PREFIXES += (
    "dynamo",
    "process_medians",
    "noisy",
    "verdict",
    "hold",
    "interval",
    "differences",
)
MEASURED_PREFIXES += ("seconds", "cpu", "load", "quiet", "busy", "contended", "unquiet")
MEASURED_PREFIXES += ("unsteady", "reference")  # the machine's own speed around each block


def _measured(key: str, where: str) -> bool:
    if where.startswith(".logs") and key == "text":
        return True  # torch's own log lines carry the time and the process id
    return key == "ms" or key.startswith(MEASURED_PREFIXES) or key.endswith(("_ms", "_s", "_mb"))


def differences(a, b, where=""):
    """Where two session documents differ in other than WHEN_WHERE and measured values: keys
    everywhere, values where nothing measured them."""
    out = []
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            out.append(f"{where}: keys {sorted(set(a) ^ set(b))}")
        for key in set(a) & set(b):
            if key in WHEN_WHERE or _measured(key, where):
                continue
            out += differences(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        if where == ".logs":  # arms that start together log in the order their lines arrive
            a, b = _by_arm(a), _by_arm(b)
        if len(a) != len(b):
            out.append(f"{where}: {len(a)} items against {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            out += differences(x, y, f"{where}[{i}]")
    elif a != b:
        out.append(f"{where}: {a!r} against {b!r}")
    return out


def _by_arm(logs: list) -> list:
    """The logs each arm wrote, in their own order, arm after arm (the run's own first)."""
    return sorted(logs, key=lambda line: (line.get("arm") is not None, line.get("arm") or 0))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The CLI's run and tcprof.run's of the same arguments, and what the callback saw."""
    cli_out, api_out = tmp_path_factory.mktemp("cli"), tmp_path_factory.mktemp("api")
    tb_cli = tmp_path_factory.mktemp("tb-cli")
    code, _out, err, cli = run_cli(
        [SIMPLE, "--arms", ARMS, "--batch-sizes", "8", "--log-to", f"tensorboard:{tb_cli}"]
        + fast_args(),
        cli_out,
    )
    assert code == 0, err
    seen = []
    session = tcprof.run(
        SIMPLE,
        arms=ARMS,
        batch_sizes=[8],
        no_accuracy=True,
        out=api_out,
        log_to=f"tensorboard:{tmp_path_factory.mktemp('tb-api')}",
        progress=lambda p: seen.append((p.kind, p.fraction)),
        **FAST,
    )
    return cli, session, seen


def test_the_apis_session_json_equals_the_clis(both):
    cli, session, _seen = both
    api = read_session(session.path)
    found = differences(cli, api)
    assert not found, "\n".join(found)
    assert api["config"]["steps"] == 6 and api["status"] == "completed"
    assert session.to_dict() == api, "the Session is the session.json it wrote"


def test_the_run_is_recorded_as_the_clis_with_its_reports(both):
    _cli, session, _seen = both
    names = {p.name for p in session.path.iterdir()}
    assert {"session.json", "steps.csv", "events.jsonl", "report.html", "report.md"} <= names
    row = session.row("aot_eager", 8)
    assert row.status == "ok" and row.steps == 6 and row.speedup is not None
    assert session.verdict("aot_eager", 8) == "no interval", "one round"
    assert row.compile is not None and row.compile.cold_s is not None


def test_log_to_writes_the_same_tensorboard_runs_as_the_clis(both, tmp_path_factory):
    from tests.support.tensorboard_read import accumulator, series

    _cli, session, _seen = both
    base = tmp_path_factory.getbasetemp()
    api_runs = sorted((base / "tb-api0").glob("*/*"))
    cli_runs = sorted((base / "tb-cli0").glob("*/*"))
    assert [p.name for p in api_runs] == [p.name for p in cli_runs] == ["aot_eager", "eager"]
    steps = [s for s in (session.to_dict()["samples"] or []) if s["arm"] == "aot_eager"]
    logged = series(accumulator(api_runs[0]), "step_ms/bs8")
    measured = [ms for sample in steps for ms in sample["ms"]]
    assert len(measured) == 6
    assert len(logged) >= len(measured), "every measured step is logged (warm-up ones too)"
    for ms in measured:
        assert any(abs(v - ms) <= 1e-5 * ms for v in logged.values()), (ms, logged)


def test_the_callback_hears_the_run_as_it_goes(both):
    _cli, _session, seen = both
    kinds = [k for k, _ in seen]
    assert kinds[0] == "run_start" and kinds[-1] == "run_end"
    assert kinds.count("block_done") == 4, "2 arms x 2 blocks"
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


SCRIPT = """
import sys
import torch
import torch.nn as nn
import tcprof

class Shipped(nn.Module):
    '''Defined in __main__: it travels by value.'''

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)

    def forward(self, x, targets=None):
        return self.fc(x)

def make_batch(batch_size, device):
    return torch.randn(batch_size, 6, device=device), torch.randn(batch_size, 3, device=device)

session = tcprof.run(Shipped, make_batch=make_batch, arms="eager", batch_sizes=4, out=sys.argv[1],
                     no_accuracy=True, quiet=True, warmup=1, steps=4, blocks=1, replicates=1,
                     min_block_ms=0)
print(session.status, session.row("eager", 4).steps, session.arm("eager").data["model"]["model"])
"""


def test_a_class_defined_in_main_is_shipped_to_the_workers(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(SCRIPT))
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["completed", "4", "Shipped()"]
    session = tcprof.load(out)
    assert session.config["source"]["path"] == str(out / PICKLED_MODEL_FILE)
    assert session.config["source"]["model"] == "Shipped"
    assert json.loads((out / "session.json").read_text())["config"]["source"]["path"] == (
        PICKLED_MODEL_FILE
    ), "inside its folder, as every path of session.json"
    assert session.arm("eager").data["model"]["input"] == "make_batch(batch_size, device)"
    code = render_reproducer(session, "eager")  # its report's script reads the file
    out = run_script(code, tmp_path, "--steps", "2", "--batch-size", "4")
    assert abs(float(LOSS.search(out).group(1)) - session.row("eager", 4).data["first_loss"]) < 1e-5


def test_a_keyboard_interrupt_from_the_callback_keeps_what_was_measured(tmp_path, capsys):
    def stop_after_the_first_block(progress):
        if progress.kind == "block_done":
            raise KeyboardInterrupt

    session = tcprof.run(
        SIMPLE,
        arms=ARMS,
        batch_sizes=8,
        no_accuracy=True,
        out=tmp_path,
        progress=stop_after_the_first_block,
        json=True,
        **FAST,
    )
    assert worker_processes() == [], "the workers were ended"
    printed = json.loads(capsys.readouterr().out)  # json=True: session.json, as the CLI prints it
    assert printed["status"] == "stopped" and "samples" not in printed
    assert session.status == "stopped" and session.path == tmp_path.absolute()
    measured = [r for r in session.rows if r.steps_measured]
    assert measured and all(r.partial for r in measured), "the block it had, marked partial"
    assert measured[0].steps == 3 and measured[0].median_ms is not None
    assert tcprof.load(tmp_path).rows == session.rows, "saved as it was returned"
