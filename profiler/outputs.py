"""Files a run leaves behind: events.jsonl (appended live), session.json and steps.csv.

Finished files are written atomically (a temporary file renamed into place), so a crash while
exporting never leaves a half-written file where a good one was.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from profiler.events import encode, jsonsafe
from profiler.session import Session

CSV_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def atomic_write_text(path: str | Path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600; reports are meant to be shared
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class EventLog:
    """A listener that appends every event to events.jsonl as it arrives."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "ab")

    def __call__(self, event: dict[str, Any]) -> None:
        if self._file.closed:
            return
        self._file.write(encode(event))
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def write_session_json(session: Session, path: str | Path) -> None:
    atomic_write_text(
        path, json.dumps(jsonsafe(session.to_dict()), indent=1, allow_nan=False) + "\n"
    )


def safe_cell(value: Any) -> Any:
    """Neutralise spreadsheet formulas: a text cell starting with = + - @ gets a leading quote."""
    if isinstance(value, str) and value.startswith(CSV_FORMULA_PREFIXES):
        return "'" + value
    return value


def steps_rows(session: Session) -> list[list[Any]]:
    """One row per measured step (see rows_from_samples)."""
    return rows_from_samples(jsonsafe(session.samples()))


def rows_from_samples(samples: list[dict[str, Any]]) -> list[list[Any]]:
    """One row per measured step: arm, batch size, replicate (round), block, step, milliseconds
    and the first round's latest memory reading at or after that step. The one definition of
    steps.csv's rows, for a live Session and a saved session.json alike."""
    rows: list[list[Any]] = []
    for sample in samples:
        ms_list = sample.get("ms") or []
        blocks = [b for b in sample.get("blocks") or [] if isinstance(b, list) and len(b) == 3]
        tags = [(rep, block) for rep, block, n in blocks for _ in range(int(n))]
        if len(tags) != len(ms_list):  # schema 1: one process, one block
            tags = [(0, 0)] * len(ms_list)
        first_measured = 1 + len(sample.get("warmup_ms") or [])
        mem = sorted(
            (m for m in sample.get("memory") or [] if m and m[0] is not None), key=lambda m: m[0]
        )
        j = 0
        for i, (ms, (rep, block)) in enumerate(zip(ms_list, tags, strict=True)):
            step = first_measured + i
            while j < len(mem) - 1 and mem[j][0] < step:
                j += 1
            m = (list(mem[j]) + [None] * 4)[:4] if mem and rep == 0 else [None] * 4
            value = round(ms, 6) if isinstance(ms, (int, float)) else None
            rows.append(
                [sample.get("arm"), sample.get("batch_size"), rep, block, step, value, *m[1:]]
            )
    return rows


STEPS_HEADER = [
    "arm",
    "batch_size",
    "replicate",
    "block",
    "step",
    "ms",
    "rss_mb",
    "cuda_alloc_mb",
    "cuda_reserved_mb",
]


def write_steps_csv(session: Session, path: str | Path) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(STEPS_HEADER)
    for row in steps_rows(session):
        writer.writerow([safe_cell(v) if v is not None else "" for v in row])
    atomic_write_text(path, buf.getvalue())


def write_all(session: Session, out_dir: str | Path) -> list[Path]:
    out = Path(out_dir)
    write_session_json(session, out / "session.json")
    write_steps_csv(session, out / "steps.csv")
    return [out / "session.json", out / "steps.csv"]
