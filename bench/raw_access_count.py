"""How often the readers of a session reach into it as a raw dictionary (issue 40, item 3): per
package (report, trackers, cli, analysis, app), the lines with a string-keyed access
(`.get("x"`, `["x"]`, single quotes too) and the lines spelling a raw dictionary's type
(`dict[str, Any]`, the `Json` alias, `Mapping[str, Any]`). The typed session model
(profiler/model/) is what should replace them; the count only goes down
(tests/profiler/model/test_raw_access_count.py holds its ceiling).

Run: .venv/bin/python -m bench.raw_access_count
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READERS = {
    "report": ROOT / "profiler" / "report",
    "trackers": ROOT / "profiler" / "trackers",
    "cli": ROOT / "profiler" / "cli",
    "analysis": ROOT / "profiler" / "analysis",
    "app": ROOT / "app",
}
STRING_KEY = re.compile(r"""\.get\(\s*["'][^"']*["']|\[\s*["'][^"']*["']\s*\]""")
RAW_TYPE = re.compile(r"dict\[str,\s*Any\]|Mapping\[str,\s*Any\]|\bJson\b")


def count_file(path: Path) -> tuple[int, int]:
    """(string-keyed lines, raw-type lines) of one file; a line counts once for each kind."""
    keyed = raw = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        keyed += bool(STRING_KEY.search(line))
        raw += bool(RAW_TYPE.search(line))
    return keyed, raw


def count() -> dict[str, tuple[int, int]]:
    """Per package: (string-keyed lines, raw-type lines) over its .py files."""
    result = {}
    for name, folder in READERS.items():
        pairs = [count_file(p) for p in sorted(folder.rglob("*.py"))]
        result[name] = (sum(k for k, _ in pairs), sum(r for _, r in pairs))
    return result


def table(counts: dict[str, tuple[int, int]]) -> str:
    lines = [f"{'package':<10} {'string keys':>12} {'raw dicts':>10}"]
    lines += [f"{name:<10} {k:>12} {r:>10}" for name, (k, r) in counts.items()]
    total_k = sum(k for k, _ in counts.values())
    total_r = sum(r for _, r in counts.values())
    lines.append(f"{'total':<10} {total_k:>12} {total_r:>10}")
    return "\n".join(lines)


def main() -> int:
    print(table(count()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
