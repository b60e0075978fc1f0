"""Does the window change the numbers? The app's speedup against the CLI's on the same model.

The real window (offscreen, at a realistic size, plots drawing live) runs the same config as
`tcprof run`, alternating app, CLI, CLI, app, ... so drift hits both alike. A worker waits for
the run's other processes (the window included) to be idle before each timed block, and holds
its events back during a block, so the window's drawing should not reach the timings: the
speedups' intervals should overlap, and the medians agree within the machine's noise.

Run: .venv/bin/python -m bench.app_vs_cli [--example mlp] [--batch-size 64] [--pairs 2]
(the window's untouched run of the built-in example: --example simple --batch-size 32)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ARMS = "eager,inductor"


def app_run(example: str, batch_size: int) -> dict:
    from PySide6.QtCore import QEventLoop

    from bench.gui_synthetic import show_realistic
    from tcprof.app.window.main_window import MainWindow
    from tcprof.profiler.config import ArmSpec, parse_arms
    from tcprof.profiler.config.examples import example_path

    window = MainWindow(background=False)
    show_realistic(window, app_instance())
    window.setup.model.set_path(str(example_path(example)), None, "", "")
    window.setup.arms.set_arms([ArmSpec.from_dict(a.to_dict()) for a in parse_arms(ARMS)])
    window.setup.batch_sizes.setText(str(batch_size))
    loop = QEventLoop()
    window.controller.runEnded.connect(loop.quit)
    t0 = time.perf_counter()
    window.start_run()
    loop.exec()
    wall = time.perf_counter() - t0
    session = window.controller.session().to_dict()
    redraws = window.plots.ticks
    window.close()
    row = next(a for a in session["arms"] if a["name"] == "inductor")["results"][0]
    return {"row": row, "wall_s": wall, "redraws": redraws}


def cli_run(example: str, batch_size: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="tcprof-app-vs-cli-") as out:
        cmd = [sys.executable, "-m", "tcprof.profiler", "run", "--example", example, "--arms", ARMS]
        cmd += ["--batch-sizes", str(batch_size), "--quiet", "--out", out]
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
        wall = time.perf_counter() - t0
        session = json.loads((Path(out) / "session.json").read_text())
    row = next(a for a in session["arms"] if a["name"] == "inductor")["results"][0]
    return {"row": row, "wall_s": wall, "redraws": None}


_APP = None


def app_instance():
    global _APP
    from PySide6.QtWidgets import QApplication

    if _APP is None:
        _APP = QApplication.instance() or QApplication([])
    return _APP


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--example", default="mlp")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--pairs", type=int, default=2)
    args = ap.parse_args(argv)
    home = tempfile.mkdtemp()
    os.environ["TCPROF_HOME"] = home
    from PySide6.QtCore import QSettings

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, home)
    app_instance()
    results = []
    for i in range(args.pairs):
        order = ("app", "cli") if i % 2 == 0 else ("cli", "app")
        for who in order:
            r = (
                app_run(args.example, args.batch_size)
                if who == "app"
                else cli_run(args.example, args.batch_size)
            )
            row = r["row"]
            line = (
                f"{who}: speedup {row['speedup']:.3f} [{row['speedup_ci'][0]:.3f}-"
                f"{row['speedup_ci'][1]:.3f}], inductor median {row['median_ms']:.3f} ms "
                f"(processes {[round(m, 3) for m in row['process_medians_ms']]}), "
                f"unquiet blocks {row['unquiet_blocks']}, wall {r['wall_s']:.0f} s"
                + (f", {r['redraws']} plot redraws" if r["redraws"] is not None else "")
            )
            print(line, flush=True)
            results.append((who, row))
    cis = [row["speedup_ci"] for _, row in results]
    overlap = all(a[0] <= b[1] and b[0] <= a[1] for i, a in enumerate(cis) for b in cis[i + 1 :])
    print(f"all intervals overlap pairwise: {'yes' if overlap else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
