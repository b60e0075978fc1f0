"""A wheel installed in a fresh environment works like the checkout.

The sdist is built from a copy of the source tree, the wheel from the unpacked sdist (so the sdist
must carry everything the wheel needs), and the wheel goes into a new virtual environment outside
the checkout with the torch this suite runs on. `tcprof` then runs from a neutral folder with no
trace of the checkout on its path: the examples, a run with two arms, and a report whose chart
library is inline.

The new environment gets the wheel's declared dependencies (torch, PySide6, scipy and the rest,
closed over their own requirements) as links to this suite's installed copies, in a folder its
one `.pth` file names: pip finds them installed and adds only tcprof, and a dependency the wheel
fails to declare is missing there as it would be on a user's machine. Installing them afresh
(over 1 GB of files) was most of this test's time.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tcprof.profiler.config.examples import list_examples

pytestmark = [pytest.mark.install, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[1]
# Local state of a checkout that is no part of the source (see .gitignore).
TOP_LEVEL_LOCAL = {".git", ".venv", "build", "dist", "out", "tmp"}
ANYWHERE_LOCAL = shutil.ignore_patterns(
    "__pycache__",
    "*.py[cod]",
    "*.egg-info",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".import_linter_cache",
)  # the checkers' caches: tests/test_types.py may be writing one meanwhile (files come and go)
# Runs one PEP 517 hook of setuptools (the project's build backend) in the current folder.
BUILD = (
    "import sys; from setuptools import build_meta as backend; "
    "print(getattr(backend, 'build_' + sys.argv[1])(sys.argv[2]))"
)
# The one file this test adds to the new environment: it names the folder of linked dependencies.
DEPENDENCY_PTH = "suite-dependencies.pth"
# What an environment's site-packages holds that no distribution but tcprof's installed.
OWNED_BY_TCPROF_ONLY = (
    "import importlib.metadata as m, pathlib; "
    "site = pathlib.Path(m.distribution('tcprof').locate_file('')); "
    "owned = {pathlib.PurePath(f).parts[0] for d in m.distributions() "
    "if d.metadata['Name'] != 'tcprof' for f in (d.files or [])}; "
    f"owned |= {{'__pycache__', {DEPENDENCY_PTH!r}}}; "
    "print(*sorted(p.name for p in site.iterdir() if p.name not in owned))"
)
# Extraction refuses links and paths out of the folder where Python offers it (3.10.12+, 3.11.4+).
SAFE_EXTRACT = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
UPLOT = ROOT / "resources" / "report" / "vendor" / "uplot" / "uPlot.iife.min.js"


def _ignore_local(folder: str, names: list[str]) -> set[str]:
    ignored = set(ANYWHERE_LOCAL(folder, names))
    if Path(folder) == ROOT:
        ignored |= TOP_LEVEL_LOCAL & set(names)
    return ignored


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stderr[-4000:]}"
    return proc.stdout


def _build(hook: str, source: Path, dist: Path) -> Path:
    out = _run([sys.executable, "-c", BUILD, hook, str(dist)], cwd=source)
    return dist / out.strip().splitlines()[-1]


def _shipped_resources() -> list[str]:
    """Every file of the checkout's resources/ folder, relative to the project root."""
    files = (ROOT / "resources").rglob("*")
    return sorted(
        p.relative_to(ROOT).as_posix()
        for p in files
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )


def _source_modules() -> list[str]:
    """Every module of app/, profiler/ and resources/ (and tcprof/'s own), as the wheel names
    them under tcprof/: a package folder left out of pyproject.toml's list shows up here."""
    found = [p.relative_to(ROOT / "tcprof").as_posix() for p in (ROOT / "tcprof").glob("*.py")]
    for top in ("app", "profiler", "resources"):
        for p in (ROOT / top).rglob("*.py"):
            if "__pycache__" not in p.parts and (p.parent / "__init__.py").is_file():
                found.append(p.relative_to(ROOT).as_posix())
    return sorted(found)


def _declared_closure(wheel: Path) -> set[str]:
    """The distributions the wheel requires (no extras), with theirs, as this suite has them."""
    with zipfile.ZipFile(wheel) as zf:
        (meta,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        text = zf.read(meta).decode()
    todo = [
        line.split(":", 1)[1].strip()
        for line in text.splitlines()
        if line.startswith("Requires-Dist:")
    ]
    seen: set[str] = set()
    while todo:
        req = Requirement(todo.pop())
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(req.name)
        if name not in seen:
            seen.add(name)
            todo += importlib.metadata.distribution(name).requires or []
    return seen


def _link_dependencies(wheel: Path, folder: Path, venv_python: Path) -> None:
    """Links the wheel's dependency closure's top-level files into `folder`, and points the new
    environment at it with one `.pth` file (named in OWNED_BY_TCPROF_ONLY's exceptions)."""
    folder.mkdir()
    for name in _declared_closure(wheel):
        dist = importlib.metadata.distribution(name)
        site = Path(str(dist.locate_file("")))
        for top in {Path(str(f)).parts[0] for f in dist.files or []} - {".."}:
            if (site / top).exists() and not (folder / top).exists():
                (folder / top).symlink_to(site / top)
    (_purelib(venv_python) / DEPENDENCY_PTH).write_text(str(folder) + "\n")


def _purelib(venv_python: Path) -> Path:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return Path(_run([str(venv_python), "-c", code], venv_python.parent).strip())


def _clean_env(home: Path) -> dict[str, str]:
    """The test's environment without anything that points Python at the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["TCPROF_HOME"] = str(home)
    return env


def test_the_installed_wheel_runs_like_the_checkout(tmp_path):
    resources = _shipped_resources()
    assert "resources/report/vendor/uplot/uPlot.iife.min.js" in resources

    source, dist = tmp_path / "source", tmp_path / "dist"
    shutil.copytree(ROOT, source, ignore=_ignore_local)
    sdist = _build("sdist", source, dist)
    with tarfile.open(sdist) as tar:
        top = sdist.name.removesuffix(".tar.gz")
        in_sdist = {m.name.removeprefix(top + "/") for m in tar.getmembers()}
        tar.extractall(tmp_path / "unpacked", **SAFE_EXTRACT)
    missing = [f for f in [*resources, "Makefile", "tests/test_install.py"] if f not in in_sdist]
    assert not missing, f"the sdist lacks {missing}"

    wheel = _build("wheel", tmp_path / "unpacked" / top, dist)
    with zipfile.ZipFile(wheel) as zf:
        in_wheel = set(zf.namelist())
    missing = [f for f in resources if "tcprof/" + f not in in_wheel]
    missing += [f"tcprof/{m}" for m in _source_modules() if f"tcprof/{m}" not in in_wheel]
    assert not missing, f"the wheel lacks {missing}"
    # One import name: the package and its metadata, nothing else at the top of site-packages.
    assert {name.split("/")[0] for name in in_wheel} == {"tcprof", "tcprof-0.1.0.dist-info"}

    venv = tmp_path / "venv"
    env = _clean_env(tmp_path / "home")
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path, env=env)
    python, tcprof = venv / "bin" / "python", venv / "bin" / "tcprof"
    _link_dependencies(wheel, tmp_path / "dependencies", python)
    # This suite's pip installs into the new environment (no pip bootstrapped there), the torch
    # pinned as everywhere: it is found among the linked dependencies, and nothing replaces it.
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"]
    torch_pin = f"torch=={importlib.metadata.version('torch')}"
    _run([*pip, "--no-compile", torch_pin, str(wheel)], tmp_path, env)
    listing = [sys.executable, "-m", "pip", "--python", str(python), "list", "--format", "freeze"]
    installed = _run([*listing, "--path", str(_purelib(python))], tmp_path, env).split()
    assert [line.split("==")[0] for line in installed] == ["tcprof"], installed

    neutral = tmp_path / "elsewhere"
    neutral.mkdir()
    where = _run([str(python), "-c", "import tcprof; print(tcprof.__file__)"], neutral, env)
    assert Path(where.strip()).is_relative_to(venv), where
    added = _run([str(python), "-c", OWNED_BY_TCPROF_ONLY], neutral, env).split()
    assert sorted(added) == ["tcprof", "tcprof-0.1.0.dist-info"], added

    if sys.version_info >= (3, 11):  # from 3.11 workers keep their working folder off sys.path
        (neutral / "tcprof").mkdir()
        (neutral / "tcprof" / "__init__.py").write_text(
            "raise SystemExit('the working folder shadowed tcprof')"
        )

    listed = _run([str(tcprof), "examples"], neutral, env)
    assert [line.split()[0] for line in listed.splitlines()] == list(list_examples())

    session = tmp_path / "session"
    run_args = ["--arms", "eager,aot_eager", "--steps", "5", "--replicates", "1", "--warmup", "1"]
    run_args += ["--min-block-ms", "0", "--no-accuracy", "--quiet", "--out", str(session)]
    _run([str(tcprof), "run", "--example", "simple", *run_args], neutral, env)
    assert (session / "session.json").is_file()

    reports = tmp_path / "reports"
    _run([str(tcprof), "report", str(session), "--out", str(reports)], neutral, env)
    page = (reports / "report.html").read_text(encoding="utf-8")
    assert UPLOT.read_text(encoding="utf-8") in page
    assert "torch.compile" in (reports / "reproduce.py").read_text(encoding="utf-8")
