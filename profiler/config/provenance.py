"""Where a run's code came from: the git commit, branch and dirty state of the repository that
holds the model file or script, and tcprof's own version, gathered by the engine (no torch)
before the run starts and recorded in session.json's `provenance` (docs/session-format.md).

Never an error: a file outside any repository has no git facts; a missing or slow `git` (each
call is bounded by GIT_TIMEOUT_S) leaves the commit and branch read from `.git` itself, and the
dirty state unknown (None).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
from pathlib import Path
from typing import Any

GIT_TIMEOUT_S = 2.0  # per git call; a run never waits long for its provenance
_HASH = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def tcprof_version() -> str:
    """This install's version; a checkout that was never installed reads its pyproject.toml."""
    try:
        return importlib.metadata.version("tcprof")
    except importlib.metadata.PackageNotFoundError:
        pass
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        found = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(), re.M)
    except OSError:
        found = None
    return found.group(1) if found else "unknown"


def source_file(config: dict[str, Any]) -> str | None:
    """The file a run's config measures: its script, else its model file."""
    script = config.get("script")
    if isinstance(script, dict) and isinstance(script.get("path"), str):
        return str(script["path"])
    path = (config.get("source") or {}).get("path")
    return path if isinstance(path, str) else None


def run_provenance(config: dict[str, Any]) -> dict[str, Any]:
    """session.json's `provenance` for a run of `config`: tcprof's version and the git facts of
    the repository holding its file (None outside one)."""
    path = source_file(config)
    return {"tcprof": tcprof_version(), "git": git_facts(path) if path else None}


def repo_root(path: str | os.PathLike[str]) -> Path | None:
    """The top of the git work tree holding `path` (a `.git` folder or file beside it), or None."""
    here = Path(os.path.abspath(path))
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return None


def git_facts(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """commit (full), short, branch (None: detached), dirty (None: unknown), the repository's
    root and `path` relative to it; None when `path` is in no repository."""
    root = repo_root(path)
    if root is None:
        return None
    relative = Path(os.path.abspath(path)).relative_to(root).as_posix()
    commit = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    if commit is not None and _HASH.match(commit):
        branch = _git(root, "symbolic-ref", "-q", "--short", "HEAD") or None
        dirty = _dirty(root, relative)
    else:  # no git binary, a slow one, or one that refuses this repository: read .git itself
        commit, branch = _read_head(root)
        dirty = None
    if commit is None:
        return None  # a repository with no commit yet: nothing to name
    return {
        "commit": commit,
        "short": commit[:7],
        "branch": branch,
        "dirty": dirty,
        "root": str(root),
        "path": relative,
    }


def _dirty(root: Path, relative: str) -> bool | None:
    """Tracked files changed (staged or not), or the measured file itself untracked; untracked
    files elsewhere (the session folders a run writes) do not count."""
    changed = _git(root, "status", "--porcelain", "--untracked-files=no")
    tracked = _git(root, "ls-files", "--", relative)
    if changed is None or tracked is None:
        return None
    return bool(changed) or not tracked


def _git(root: Path, *args: str) -> str | None:
    """git's output in `root`, stripped; None when git is missing, slow or fails."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_OPTIONAL_LOCKS"] = "0"  # status must not take the index's lock from the user
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _read_head(root: Path) -> tuple[str | None, str | None]:
    """(commit, branch) from the files of `.git` (a worktree's `.git` file followed)."""
    git_dir = _git_dir(root)
    if git_dir is None:
        return None, None
    head = _read_text(git_dir / "HEAD")
    if head is None:
        return None, None
    if not head.startswith("ref:"):
        return (head if _HASH.match(head) else None), None
    ref = head[4:].strip()
    branch = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None
    common = git_dir
    pointer = _read_text(git_dir / "commondir")
    if pointer:
        common = (git_dir / pointer).resolve()
    for folder in dict.fromkeys((git_dir, common)):
        found = _read_text(folder / ref)
        if found and _HASH.match(found):
            return found, branch
        for line in (_read_text(folder / "packed-refs") or "").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref and _HASH.match(parts[0]):
                return parts[0], branch
    return None, branch


def _git_dir(root: Path) -> Path | None:
    dot = root / ".git"
    if dot.is_dir():
        return dot
    text = _read_text(dot)
    if text and text.startswith("gitdir:"):
        return (root / text[7:].strip()).resolve()
    return None


def _read_text(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(1 << 20).strip()
    except (OSError, ValueError):
        return None
