"""The setup panel's RunConfig, saved state, first problem and carried line for a few saved
setups, as one JSON file: run it in two trees (before and after a change to app/setup) and
diff them (the example model's path names the tree; replace it first).

Run (in each tree's root): PYTHONPATH=. QT_QPA_PLATFORM=offscreen .venv/bin/python -m
bench.setup_panel_dump OUT.json
"""

import json
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication


def cases(simple: str, script: str, folder: str) -> list[dict[str, object]]:
    """A model file's setups (distributed, carried, auto with a budget and controls) and a
    script's (with fields a script cannot take; a sweep with nothing to fill)."""
    src = {"path": simple}
    return [
        {"source": src},
        {"source": src, "nproc": 2, "parallel": "ddp", "blocks": 3, "sequential": True},
        {"source": src, "replicates": None, "budget_s": 120.0, "control": "both", "threads": 2}
        | {"amp": "bf16", "block_module": "Blk", "host": "box"},
        {"source": src, "loop": "inference", "amp": "fp16", "optimizer": "adam", "lr": 0.5}
        | {"save_weights": "pt", "profile_steps": 3, "apply_advice": True, "nproc": 2}
        | {"script": {"path": script, "args": "--bs={batch_size}", "cwd": folder}}
        | {"batch_sizes": "4, 8", "block_module": "B"},
        {"source": src, "nproc": 3, "script": {"path": script, "args": "--x", "sweep": "lr=1,2"}}
        | {"stop_early": True, "replicates": 6, "min_block_ms": 0.0},
        {"source": src, "nnodes": 2, "rdzv_endpoint": "h:1", "parallel": "fsdp", "nproc": 2},
    ]


def main(out: str) -> int:
    folder = tempfile.mkdtemp()
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, folder)
    app = QApplication([])
    from tcprof.app.setup.setup_panel import SetupPanel
    from tcprof.profiler.config import ConfigError
    from tcprof.profiler.config.examples import example_path

    script = Path(folder, "train.py")
    script.write_text("print(1)\n")
    dumped = []
    for case in cases(str(example_path("simple")), str(script), folder):
        panel = SetupPanel(None)
        panel.restore(case, trust_model=True)
        try:
            config: object = panel.config().to_dict()
        except ConfigError as exc:
            config = str(exc)
        dumped.append([config, panel.state(), panel.error(), panel.carried.text()])
    Path(out).write_text(json.dumps(dumped, sort_keys=True, default=str, indent=1))
    app.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
