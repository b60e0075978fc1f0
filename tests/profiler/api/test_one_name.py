"""One name per meaning (issue 40, item 5): one class named `Session` (the API's saved session;
the live fold is `SessionFold`), one `Comparison` and one `compare` (the API's; the report's
diff of two sessions is `SessionDiff`, made by `diff_sessions`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tcprof.profiler

ROOT = Path(tcprof.profiler.__file__).resolve().parent.parent


def _declared(pattern: str) -> list[str]:
    found = re.compile(pattern, re.MULTILINE)
    return [
        str(path.relative_to(ROOT))
        for folder in ("profiler", "app")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if found.search(path.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize(
    ("pattern", "where"),
    [
        (r"^class Session\b", "profiler/api/session.py"),
        (r"^class Comparison\b", "profiler/api/comparison.py"),
        (r"^def compare\(", "profiler/api/comparison.py"),
    ],
)
def test_each_name_is_declared_once(pattern: str, where: str) -> None:
    assert _declared(pattern) == [where]
