"""An index entry read once into typed records (folders/index.py `IndexEntry`), so a history
reads attributes: its rows by batch size, its baseline, an old entry without one."""

from __future__ import annotations

from tcprof.profiler.folders.index import IndexEntry, load_index
from tcprof.profiler.report import history
from tests.support.history_series import write_series


def test_an_index_entry_reads_its_arms_rows_and_commit(tmp_path):
    write_series(tmp_path, [1.0, 1.0])
    entry = IndexEntry.of(load_index(tmp_path)[0])
    assert entry.short == "c000001" and not entry.dirty and entry.series
    assert entry.baseline == "eager" and [a.name for a in entry.arms] == ["eager", "aot_eager"]
    row = entry.rows("aot_eager")[8]
    assert row.arm == "aot_eager" and row.speedup is not None and row.median_ms
    assert entry.rows("eager")[8].speedup is None and entry.rows("missing") == {}
    assert IndexEntry.read(entry) is entry


def test_an_entry_without_baseline_takes_its_first_arm_and_skips_unsized_rows():
    raw = {
        "folder": "run-9",
        "arms": [
            {"name": "eager", "results": [{"batch_size": 4, "median_ms": 10.0}]},
            {"name": "inductor", "results": [{"batch_size": "4"}, {"median_ms": 1.0}]},
        ],
    }
    entry = IndexEntry.of(raw)
    assert entry.baseline == "eager" and entry.rows("inductor") == {}
    assert history.commit_text(entry) == "session run-9" == history.commit_text(raw)
    assert history.date_text(entry) == "?"


def test_a_history_of_typed_entries_is_the_history_of_the_loaded_ones(tmp_path):
    write_series(tmp_path, [1.0, 1.0, 1.0, 1.2, 1.2, 1.2])
    loaded = load_index(tmp_path)
    key = history.series_counts(loaded)[0][0]
    typed = history.build_history([IndexEntry.of(e) for e in loaded], key)
    assert history.render_text(typed) == history.render_text(history.build_history(loaded, key))
    assert [c.after.short for c in typed.changes] == [loaded[3]["short"]]
