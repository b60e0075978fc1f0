"""Another interpreter for an arm's `python=`: a virtual environment made in a test's folder
(no pip, a tenth of a second), with this environment's torch (the same torch is enough to test
the mechanism) or with none."""

from __future__ import annotations

import site
import subprocess
import sys
from pathlib import Path


def other_python(folder: Path, with_torch: bool = True) -> Path:
    """A venv's interpreter; with_torch: this environment's site-packages reached through a
    .pth file (a venv's --system-site-packages is the base interpreter's, which has no torch)."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    if with_torch:
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        lines = "\n".join(site.getsitepackages()) + "\n"
        (Path(purelib) / "tcprof_test_torch.pth").write_text(lines)
    return python
