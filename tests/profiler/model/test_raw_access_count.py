"""The readers' raw-dictionary count (bench/raw_access_count.py) only goes down: as readers move
to the typed session model, lower CEILING to the new count (docs/benchmarks.md records it)."""

from __future__ import annotations

from pathlib import Path

from bench.raw_access_count import count, count_file

# (string-keyed lines, raw-dictionary type lines) over report, trackers, cli, analysis and app:
# 1,058 and 374 when issue 40 was filed; docs/benchmarks.md, "Raw access", records each step.
CEILING = (101, 66)


def test_the_count_does_not_rise() -> None:
    counts = count()
    keyed = sum(k for k, _ in counts.values())
    raw = sum(r for _, r in counts.values())
    assert keyed <= CEILING[0], f"{keyed} string-keyed lines, above the ceiling {CEILING[0]}"
    assert raw <= CEILING[1], f"{raw} raw-dictionary lines, above the ceiling {CEILING[1]}"


def test_each_kind_is_counted_once_a_line(tmp_path: Path) -> None:
    source = tmp_path / "reader.py"
    source.write_text(
        "a = row.get('x') or row[\"y\"]\n"
        "b: dict[str, Any] = {}\n"
        "c: Json = {}\n"
        "d: Mapping[str, Any] = {}\n"
        "e = row[0] + row.get(key)\n"
        "f = JsonLike\n",
        encoding="utf-8",
    )
    assert count_file(source) == (1, 3)
