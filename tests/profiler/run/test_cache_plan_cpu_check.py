"""A compiled arm's `load` names the folder of inductor's once-per-machine CPU check (under
the home folder, by host) wherever tcprof owns its cache folder; never with the user's own."""

from __future__ import annotations

import pytest

from tcprof.profiler.config import ArmSpec, ModelSource, RunConfig
from tcprof.profiler.folders.home import cpu_check_dir, tcprof_home
from tcprof.profiler.run.cache_plan import CacheFolders

pytestmark = pytest.mark.timeout(30)


def _folders(warm_cache: bool) -> CacheFolders:
    config = RunConfig(
        source=ModelSource(path="model.py"),
        arms=(ArmSpec("eager"), ArmSpec("inductor")),
        replicates=3,
        warm_cache=warm_cache,
    )
    return CacheFolders(config)


def test_tcprof_cache_folders_come_with_the_cpu_check_folder():
    folders = _folders(warm_cache=False)
    try:
        for cache in ("cold", "portable", "warm"):
            fields = folders.load_fields(1, ArmSpec("inductor"), cache)
            assert fields["cpu_check_dir"] == str(cpu_check_dir())
        assert cpu_check_dir().parent == tcprof_home() / "inductor-cpu-check"
        assert folders.load_fields(0, ArmSpec("eager"), "cold") == {}
    finally:
        folders.remove()


def test_the_users_own_caches_get_no_cpu_check_folder():
    folders = _folders(warm_cache=True)
    assert folders.load_fields(1, ArmSpec("inductor"), "user") == {"cache_dir": None}
