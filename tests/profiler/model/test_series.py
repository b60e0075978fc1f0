"""The series key: equal for sessions that differ only in how much or how precisely they
measured (rounds, seed, steps, a time budget), different when what is measured differs (arms,
batch sizes, the loop, the file or its entry); an old session opens and gets one."""

from __future__ import annotations

import copy
import json
import shutil
from typing import Any

import pytest

from tcprof.profiler.api.session import load
from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.folders.files import read_session
from tcprof.profiler.model.series import series_of
from tests.support.paths import DATA

OLD_SESSION = DATA / "session_v1.json"


def _session(**overrides: Any) -> dict[str, Any]:
    """A session dict as the engine records one (schema 4), outside any repository."""
    fields: dict[str, Any] = {
        "source": ModelSource("/elsewhere/net.py", model="Net"),
        "arms": (ArmSpec("eager"), ArmSpec("inductor")),
        "batch_sizes": (8, 16),
    }
    fields.update(overrides)
    config = RunConfig(**fields).to_dict()
    return {"config": config, "provenance": {"tcprof": "0.1.0", "git": None}, "arms": []}


def _key(**overrides: Any) -> str:
    series = series_of(_session(**overrides))
    assert series is not None
    return str(series["key"])


def test_rounds_seed_steps_and_budget_leave_the_series_alone():
    assert _key() == _key(replicates=7, seed=123, steps=500, warmup=9, timeout_s=60.0)
    assert _key() == _key(blocks=3, accuracy=False, control="eager", min_block_ms=5.0)
    assert _key() == _key(arms=(ArmSpec("eager"), ArmSpec("inductor", label="mine")))


@pytest.mark.parametrize(
    "change",
    [
        {"arms": (ArmSpec("eager"), ArmSpec("aot_eager"))},
        {"arms": (ArmSpec("eager"), ArmSpec("inductor", mode="max-autotune"))},
        {"arms": (ArmSpec("eager"), ArmSpec("inductor", dynamic=True))},
        {"batch_sizes": (8,)},
        {"batch_sizes": (8, 32)},
        {"loop": "inference"},
        {"amp": "bf16"},
        {"channels_last": True},
        {"optimizer": "adam"},
        {"source": ModelSource("/elsewhere/net.py", model="Other")},
        {"source": ModelSource("/elsewhere/other.py", model="Net")},
    ],
    ids=lambda c: next(iter(c)),
)
def test_what_is_measured_changes_the_series(change):
    assert _key(**change) != _key()


def test_the_default_mode_named_or_not_is_one_series():
    named = (ArmSpec("eager"), ArmSpec("inductor", mode="default"))
    assert _key(arms=named) == _key()


def test_the_key_is_short_stable_and_readable():
    series = series_of(_session())
    assert series is not None
    assert len(series["key"]) == 12 and int(series["key"], 16) >= 0
    assert series["key"] == series_of(copy.deepcopy(_session()))["key"]
    assert series["text"] == "/elsewhere/net.py:Net · eager, inductor · bs 8, 16 · train · cpu"
    # what the key hashes is kept readable beside it
    assert series["parts"]["batch_sizes"] == [8, 16]
    assert [a["backend"] for a in series["parts"]["arms"]] == ["eager", "inductor"]


def test_a_file_in_a_repository_is_named_from_its_root_so_clones_agree():
    def in_clone(root: str) -> dict[str, Any]:
        session = _session(source=ModelSource(f"{root}/models/net.py", model="Net"))
        session["provenance"]["git"] = {"root": root, "path": "models/net.py", "short": "abc1234"}
        return session

    one, other = series_of(in_clone("/home/a/repo")), series_of(in_clone("/ci/work/repo"))
    assert one is not None and other is not None
    assert one["key"] == other["key"] and one["parts"]["file"] == "models/net.py"


def test_a_script_is_keyed_by_its_arguments():
    def script(*args: str) -> dict[str, Any]:
        session = _session()
        session["config"]["script"] = {"path": "/elsewhere/train.py", "args": list(args)}
        return session

    assert series_of(script("--lr", "1"))["key"] != series_of(script("--lr", "2"))["key"]
    assert "train.py" in series_of(script())["text"]


def test_an_old_session_opens_and_gets_a_series_key(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(OLD_SESSION, folder / "session.json")
    assert "series" not in json.loads(OLD_SESSION.read_text())

    read = read_session(folder)
    assert read["schema_version"] == 1
    assert read["series"]["parts"]["file"] == "/home/user/models/simple.py"
    assert read["series"]["parts"]["batch_sizes"] == [8, 16]
    session = load(folder)
    assert session.series is not None and session.series.key == read["series"]["key"]
    assert session.provenance.commit is None  # not recorded then: nothing, and no error
    assert session.provenance.torch == read["environment"]["torch"]


def test_an_old_session_of_a_file_in_a_repository_joins_the_series_of_new_ones(tmp_path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)  # a repository's root is all the key needs
    old = _session(source=ModelSource(str(root / "models" / "net.py"), model="Net"))
    del old["provenance"]  # before schema 4
    new = _session(source=ModelSource("/ci/repo/models/net.py", model="Net"))
    new["provenance"]["git"] = {"root": "/ci/repo", "path": "models/net.py"}
    assert series_of(old)["key"] == series_of(new)["key"]


def test_a_config_with_no_file_has_no_series():
    assert series_of({"config": {}, "arms": []}) is None
    assert series_of({"arms": []}) is None
