"""Retake the window's screenshots in docs/screenshots/ (the README shows the 1280x720 one).

A real run of the built-in example (eager, aot_eager and inductor at batch sizes 8 and 32, two
rounds, so the Summary shows intervals) in the real window, offscreen, then the window grabbed
at 1024x640, 1280x720 (Summary and Compile insight) and 1600x1000. Sessions and preferences go to temporary folders, so the
user's sessions and settings are untouched (and the window starts as on a first launch). About two minutes on a 2-core machine (inductor compiles cold).

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.screenshots [--out docs/screenshots]
     ... --example tiny_gpt --arms eager,inductor --batch-sizes "8, 16" --tabs --out /tmp/gpt
     (a published-style GPT model file end to end, every results tab grabbed)
     ... --script tests/support/scripts/tiny_gpt/train.py --script-args "config/train_tiny.py
     --batch_size={batch_size} --max_iters=400 --eval_interval=4" --batch-sizes "2, 4"
     (a training script run unchanged, from a copy of its folder: script-loaded.png before
     the run, script-run.png and script-run-tab.png, its Your script tab, after)
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

SIZES = ((1024, 640), (1280, 720), (1600, 1000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/screenshots")
    parser.add_argument("--example", default="simple", help="a built-in example's name")
    parser.add_argument("--arms", default="eager,aot_eager,inductor")
    parser.add_argument("--batch-sizes", default="8, 32")
    parser.add_argument("--tabs", action="store_true", help="also grab every results tab")
    parser.add_argument("--script", help="a training script to run instead of the example")
    parser.add_argument("--script-args", default="", help="the script's arguments")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    os.environ["TCPROF_HOME"] = tempfile.mkdtemp(prefix="tcprof-shots-")

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    QSettings.setPath(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp(prefix="tcprof-")
    )
    app = QApplication([])
    from tcprof.app.window.main_window import MainWindow
    from tcprof.profiler.config import ArmSpec

    window = MainWindow()
    window.resize(1280, 720)
    window.show()
    setup = window.setup
    if args.script:  # a copy of its folder: the files it writes stay out of the checkout
        folder = Path(tempfile.mkdtemp(prefix="tcprof-script-")) / Path(args.script).parent.name
        shutil.copytree(Path(args.script).parent, folder)
        window.scripts.open_script(str(folder / Path(args.script).name))
        setup.script.args.setText(args.script_args)
    elif args.example != "simple":
        from tcprof.profiler.config.examples import example_path

        setup.model.set_path(str(example_path(args.example)))
    setup.arms.set_arms([ArmSpec(name) for name in args.arms.split(",")])
    setup.batch_sizes.setText(args.batch_sizes)
    setup.warmup.setValue(3)
    setup.steps.setValue(40)
    setup.measurement.replicates.setValue(2)
    deadline = time.monotonic() + 120
    while not window.commands.run.isEnabled() and time.monotonic() < deadline:
        app.processEvents()  # the model's inspection
        time.sleep(0.05)
    if args.script:
        for _ in range(30):
            app.processEvents()
        window.grab().save(str(out / "script-loaded.png"))
    ended: list[str] = []
    window.controller.runEnded.connect(ended.append)
    window.start_run()
    if not window.controller.running:
        raise SystemExit(f"Run did not start: {window.status.label.text()}")
    deadline = time.monotonic() + 600
    while not ended and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.05)
    if not ended:
        raise SystemExit("the run did not end within 10 minutes")
    if args.script:
        _grab_script(app, window, out)
        print(f"run {ended[0]}; screenshots in {out}")
        window.close()
        return
    for width, height in SIZES:
        window.resize(width, height)
        for _ in range(30):
            app.processEvents()
        window.results.setCurrentIndex(0)
        app.processEvents()
        window.grab().save(str(out / f"window-{width}x{height}.png"))
        if (width, height) == (1280, 720):
            window.results.setCurrentWidget(window.results.insight)
            for _ in range(10):
                app.processEvents()
            window.grab().save(str(out / f"window-{width}x{height}-insight.png"))
    if args.tabs:
        window.resize(1280, 720)
        tabs = window.results
        for i in range(tabs.count()):
            tabs.setCurrentIndex(i)
            for _ in range(10):
                app.processEvents()
            name = tabs.tabText(i).lower().replace(" ", "-")
            window.grab().save(str(out / f"tab-{args.example}-{name}.png"))
    print(f"run {ended[0]}; screenshots in {out}")
    window.close()


def _grab_script(app, window, out: Path) -> None:
    """A script's run: the Summary (its compile sites above the table) and its own tab."""
    window.resize(1280, 720)
    for _ in range(30):
        app.processEvents()
    window.results.setCurrentIndex(0)
    app.processEvents()
    window.grab().save(str(out / "script-run.png"))
    window.results.setCurrentWidget(window.results.script)
    for _ in range(10):
        app.processEvents()
    window.grab().save(str(out / "script-run-tab.png"))


if __name__ == "__main__":
    main()
