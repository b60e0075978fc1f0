"""Where each round's compiled arms find their compile caches.

Cold and warm compile cost are only measurable with control over the caches: the first round
compiles into a fresh, empty folder per compiled arm (cold); later rounds compile against what
it left behind (warm). With --portable-round and three or more rounds the second starts from an
empty folder loaded with the first round's portable cache artifacts: what a fresh machine given
them pays. It is asked for, not default, because on the CPU it costs most of a cold compile
(15.6 s of the nanoGPT-shape script's 24 s: docs/benchmarks.md) for a figure only a user who
ships caches reads. With --warm-cache every round uses the user's own caches instead.

Each of tcprof's folders starts with inductor's once-per-machine CPU check already done (its
libraries only, from a folder under the home folder: worker/cpu_check.py), so no compile figure
holds a cost the user pays once per machine; the model's graphs and kernels are never carried.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from tcprof.profiler.config import ArmSpec, RunConfig, arm_artifacts_dir
from tcprof.profiler.folders.home import cpu_check_dir

PORTABLE_MIN_ROUNDS = 3  # a portable round needs a cold one before it and a warm one after


def cache_plan(replicates: int, warm_cache: bool, portable_round: bool = False) -> list[str]:
    """Where each round's compiled arms find their caches: 'cold' (a fresh, empty folder),
    'portable' (a fresh folder loaded with the cold round's cache artifacts), 'warm' (the
    folder the cold round filled) or 'user' (the user's own caches, --warm-cache)."""
    if warm_cache:
        return ["user"] * replicates
    plan = ["cold"] + ["warm"] * (replicates - 1)
    if portable_round and replicates >= PORTABLE_MIN_ROUNDS:
        plan[1] = "portable"
    return plan


class CacheFolders:
    """One run's cache folders (a temporary tree, removed at the end) and which arms saved
    portable artifacts after the cold round."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.plan = cache_plan(config.replicates, config.warm_cache, config.portable_round)
        """Each round's cache, in order (the rounds a run may go to)."""
        self.root: Path | None = None
        if not config.warm_cache and any(s.compiled for s in config.run_arms):
            self.root = Path(tempfile.mkdtemp(prefix="tcprof-cache-"))
        self.portable_ready: set[int] = set()

    def effective(self, index: int, spec: ArmSpec, cache: str) -> str | None:
        """The cache an arm really starts from (None for eager): a portable round falls back
        to warm for an arm whose artifacts could not be saved."""
        if not spec.compiled:
            return None
        if cache == "portable" and index not in self.portable_ready:
            return "warm"
        return cache

    def saves_portable(self, spec: ArmSpec, cache: str) -> bool:
        """After the cold round, compiled arms save artifacts for a portable round the plan
        holds."""
        return cache == "cold" and spec.compiled and "portable" in self.plan

    def load_fields(self, index: int, spec: ArmSpec, cache: str) -> dict[str, Any]:
        """The cache fields of an arm's `load` command."""
        if not spec.compiled:
            return {}
        fields: dict[str, Any] = {"cache_dir": self._cache_dir(index, cache)}
        if fields["cache_dir"] is not None:
            fields["cpu_check_dir"] = str(cpu_check_dir())
        if cache == "portable" and index in self.portable_ready:
            fields["cache_artifacts"] = str(self.artifacts_file(index))
        return fields

    def artifacts_file(self, index: int) -> Path:
        """The portable cache artifacts, offered to the user beside the session when it has a
        folder (that is how warm starts are shipped to a fleet)."""
        folder = arm_artifacts_dir(self.config, index)
        if folder is None:
            assert self.root is not None
            folder = self.root / f"arm{index}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / "compile-cache-artifacts.bin"

    def mark_saved(self, index: int) -> None:
        self.portable_ready.add(index)

    def remove(self) -> None:
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)

    def _cache_dir(self, index: int, cache: str) -> str | None:
        if self.root is None or cache == "user":
            return None
        name = "portable" if cache == "portable" and index in self.portable_ready else "main"
        return str(self.root / f"arm{index}" / name)
