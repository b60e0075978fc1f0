"""A series of synthetic sessions written into a sessions folder, with known speedups, commits,
torch versions and machines, for `tcprof history`'s tests and its benchmark."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.support.synthetic import synthetic_session

DAY = 86_400.0


def series_session(
    slowdown: float, commit: str, torch: str = "2.13.0+cpu", device: str = "Test CPU", seed: int = 0
) -> dict[str, Any]:
    """eager at ~10 ms and aot_eager at ~8 ms × `slowdown`, five rounds with ±2% noise per round
    (so the speedup is 1.25 / slowdown, with an interval)."""
    rng = random.Random(seed)

    def rounds(ms: float) -> list[list[float]]:
        out = []
        for _ in range(5):
            f = 1.0 + rng.uniform(-0.02, 0.02)
            out.append([ms * f * (1.0 + rng.uniform(-0.005, 0.005)) for _ in range(4)])
        return out

    s = synthetic_session(rounds={0: rounds(10.0), 1: rounds(8.0 * slowdown)})
    s["provenance"] = {
        "tcprof": "0.test",
        "git": {
            "commit": commit * 5,
            "short": commit,
            "branch": "main",
            "dirty": False,
            "root": "/repo",
            "path": "models/model.py",
        },
    }
    for arm in s["arms"]:
        arm["environment"] = {
            **(arm.get("environment") or {}),
            "torch": torch,
            "device_name": device,
        }
    s["environment"] = {**(s.get("environment") or {}), "torch": torch, "device_name": device}
    return s


def write_series(
    folder: Path,
    slowdowns: list[float],
    torches: list[str] | None = None,
    devices: list[str] | None = None,
    start: float = 1_700_000_000.0,
) -> list[str]:
    """One session folder per slowdown, a day apart, commits c000001.. ; their short commits."""
    commits = []
    for i, slow in enumerate(slowdowns):
        commit = f"c{i + 1:06d}"
        s = series_session(
            slow,
            commit,
            torch=(torches or [])[i] if torches else "2.13.0+cpu",
            device=(devices or [])[i] if devices else "Test CPU",
            seed=i,
        )
        s["started_at"] = start + i * DAY
        s["ended_at"] = s["started_at"] + 30
        d = folder / f"run-{i:04d}"
        d.mkdir(parents=True)
        (d / "session.json").write_text(json.dumps(s), encoding="utf-8")
        commits.append(commit)
    return commits
